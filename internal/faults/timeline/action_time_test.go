package timeline

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFaultTimeIsTheAction guards issue 33 item 2: a fault's time was
// taken when it fired, before the metadata round trips that resolve its
// target and find the leaders it takes away; on a loaded machine the kill
// came 1.41 s after the recorded time, so time + election landed before
// the controller's own fencing line. With metadata look-ups slowed, the
// recorded time is within 50 ms of the action, and the time it fired is
// kept beside it.
func TestFaultTimeIsTheAction(t *testing.T) {
	c, opts := cluster(t)
	hold := kfakehold.New(t, c) // runs before cluster's Close: cleanups run last first
	const slow = 300 * time.Millisecond
	c.ControlKey(kmsg.Metadata.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		hold.For(slow)
		return nil, nil, false
	})
	var mu sync.Mutex
	var acted time.Time
	actor := newEventActor(func(_ context.Context, action string, _ int32) error {
		mu.Lock()
		defer mu.Unlock()
		if action == faults.Kill {
			acted = time.Now()
		}
		return nil
	})
	leader := c.LeaderFor("t", 0)
	start := time.Now()
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor, Poll: 10 * time.Millisecond, MeasureFor: time.Second,
		Faults: []faults.Fault{{Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}, At: 100 * time.Millisecond}},
	}, start)
	if err != nil {
		t.Fatal(err)
	}
	actor.await(t, fmt.Sprintf("kill %d", leader), 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := tl.Finish(ctx)[0]
	mu.Lock()
	defer mu.Unlock()
	if r.Status != StatusDone || acted.IsZero() {
		t.Fatalf("fault %+v", r)
	}
	if gap := acted.Sub(start.Add(r.At)); gap < 0 || gap > 50*time.Millisecond {
		t.Errorf("the kill came %v after the recorded time %v; want within 50 ms", gap, r.At)
	}
	if r.Fired > r.At || r.At-r.Fired < slow {
		t.Errorf("fired at %v, acted at %v: want the time it fired kept, before the slowed look-ups", r.Fired, r.At)
	}
}
