package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload"
)

// tick is a test-only workload kind: it needs no broker. Prepare makes it
// ready, Start writes N counted records on the epoch (Env.Written), and
// Wait returns a publish section. It proves that a new kind runs through
// the runner with no change to the runner. (runner/engine_test.go has its
// twin, run alone.)
type tick struct {
	n       int64
	started *atomic.Int64 // when Start ran, in ns since the epoch
	late    *atomic.Bool  // whether the runner said it started late
}

func (tick) Kind() string { return "tick" }
func (t tick) Engine() workload.Engine {
	return &tickEngine{spec: t, ready: make(chan struct{}), sent: make(chan struct{})}
}

type tickEngine struct {
	spec  tick
	ready chan struct{}
	sent  chan struct{}
	acked int64
	epoch time.Time
}

func (e *tickEngine) Prepare(_ context.Context, env workload.Env) error {
	if e.spec.late != nil {
		e.spec.late.Store(env.Late)
	}
	close(e.ready)
	return nil
}

func (e *tickEngine) Ready() <-chan struct{} { return e.ready }
func (e *tickEngine) Sent() <-chan struct{}  { return e.sent }

func (e *tickEngine) Start(_ context.Context, env workload.Env) error {
	e.epoch = env.Epoch
	if e.spec.started != nil {
		e.spec.started.Store(int64(time.Since(env.Epoch)))
	}
	for range e.spec.n {
		e.acked++
		env.Written.Add(100) // a record of 100 bytes
	}
	close(e.sent)
	return nil
}

func (e *tickEngine) Wait() (workload.Measured, error) {
	select {
	case <-e.sent:
	default:
		return workload.Measured{}, nil // never started
	}
	lat := measure.NewHistogram()
	for range e.acked {
		lat.Record(1000) // 1 ms each
	}
	return workload.Measured{Publish: &workload.ProducerResult{Start: e.epoch, End: time.Now(), Acked: e.acked, Bytes: 100 * e.acked,
		Clients: 1, Latency: lat}}, nil
}

func (e *tickEngine) Stop() {}

// buildTick is the tick kind's plan builder: its records from the plan.
func buildTick(in kindInput) (workload.Spec, map[string]string, error) {
	return tick{n: in.w.Records}, nil, nil
}

// TestPlanRunsANewKind: a kind registered only here, in the plan's types
// and the runner's kinds, runs from a YAML plan through the study to a
// result document and a report, with no other change to the code.
func TestPlanRunsANewKind(t *testing.T) {
	t.Parallel()
	seeds := fakeProduceCluster(t, nil) // topic "t": the study prepares topics
	text := fmt.Sprintf(`name: ticks
cluster: {bootstrap: "%s"}
topics: [{name: t, partitions: 1, existing: reuse}]
repeat: 2
workloads:
  - {name: ticker, type: tick, topic: t, records: 1000, message: {size: 100}}
`, seeds[0])
	p, err := plan.Parse("plan.yaml", []byte(text), nil, plan.WithType("tick", plan.TypeRule{Sends: true}))
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	reg := kinds()
	reg["tick"] = buildTick
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard, not a measurement
	defer cancel()
	doc, err := Run(ctx, p, scs, Options{kinds: reg})
	if err != nil {
		t.Fatal(err)
	}
	reps := doc.Plan.Scenarios[0].Repeats
	if len(reps) != 2 {
		t.Fatalf("%d repeats, want 2", len(reps))
	}
	for _, rep := range reps {
		w := rep.Workloads[0]
		if rep.Status != result.StatusOK || w.Type != "tick" || w.Producer == nil || w.Producer.Records != 1000 {
			t.Fatalf("repeat %+v: want a tick workload of 1000 records", rep)
		}
	}
	dir := t.TempDir()
	if err := errors.Join(result.Write(filepath.Join(dir, "result.json"), doc), report.WriteAll(dir, doc)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"result.json", "summary.md", "summary.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v (%v)", f, err, fi)
		}
	}
}
