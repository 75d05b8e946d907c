package workload

import (
	"context"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/workload/consume"
)

// TestConsumeIdleFromStart guards a distributed run's repeat after a lost
// worker: its readers waited for their group (the dead member's session)
// longer than their idle timeout, which ran from their prepare, and they
// stopped before the producers started, having read nothing. A consume
// engine's idle timeout now runs from Start, the scenario's start.
func TestConsumeIdleFromStart(t *testing.T) {
	t.Parallel()
	addrs := consFakeCluster(t, "idle", 1, 0)
	const idle = 300 * time.Millisecond
	eng := Consume{Spec: consume.ConsumerSpec{Topics: []string{"idle"}, Group: "idle-g", IdleTimeout: idle,
		Interval: time.Second, ClientOpts: consFakeOpts(addrs)}}.Engine()
	ctx := context.Background()
	if err := eng.Prepare(ctx, Env{}); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = eng.Wait()
	}()
	select {
	case <-ended:
		t.Fatalf("the readers stopped as idle %s after their prepare, before the scenario started", 4*idle)
	case <-time.After(4 * idle): // the wait before the start: 4 idle timeouts
	}
	began := time.Now()
	if err := eng.Start(ctx, Env{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(30 * time.Second): // a hang guard
		eng.Stop()
		<-ended
		t.Fatal("the readers did not stop as idle after the start")
	}
	if took := time.Since(began); took < idle {
		t.Errorf("stopped %s after the start, before its idle timeout %s", took, idle)
	}
}
