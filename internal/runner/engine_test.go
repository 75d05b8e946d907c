package runner

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// tick is a test-only workload kind: it needs no broker. Prepare makes it
// ready, Start writes N counted records on the epoch (Env.Written), and
// Wait returns a publish section. It proves that a new kind runs through
// the runner with no change to the runner. (study/engine_test.go has its
// twin, run from a plan.)
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
	return workload.Measured{Publish: &produce.ProducerResult{Start: e.epoch, End: time.Now(), Acked: e.acked, Bytes: 100 * e.acked,
		Clients: 1, Latency: lat}}, nil
}

func (e *tickEngine) Stop() {}

func TestRunANewKind(t *testing.T) {
	t.Parallel()
	out, err := Run(context.Background(), Scenario{Name: "ticks", Workloads: []Workload{
		{Name: "a", Spec: tick{n: 1000}},
		{Name: "b", Spec: tick{n: 5}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{1000, 5} {
		o := out.Workloads[i]
		if o.Kind != "tick" || o.Publish == nil || o.Publish.Acked != want {
			t.Errorf("workload %s: kind %q, publish %+v; want tick with %d records", o.Name, o.Kind, o.Publish, want)
		}
	}
}

// TestRunANewKindLate: a late engine of a new kind is prepared and started
// once the workload it waits for has ended, and the backlog it waits for
// counts what the earlier one wrote.
func TestRunANewKindLate(t *testing.T) {
	t.Parallel()
	started, late := new(atomic.Int64), new(atomic.Bool)
	out, err := Run(context.Background(), Scenario{Name: "ticks", Workloads: []Workload{
		{Name: "first", Spec: tick{n: 100}},
		{Name: "then", Spec: tick{n: 7, started: started, late: late}, AfterWorkload: "first", Backlog: 100 * 100},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if o := out.Workloads[1]; !o.Late || o.Publish == nil || o.Publish.Acked != 7 {
		t.Fatalf("late workload: %+v, want 7 records, late", o)
	}
	if started.Load() <= 0 || !late.Load() {
		t.Errorf("the late workload was started %v after the epoch, told late: %v", time.Duration(started.Load()), late.Load())
	}
}

// TestRunGate: a workload with a gate starts late, once the gate has
// returned, after the workload it waits for; a gate's error fails the
// workload, which then never starts.
func TestRunGate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		gateErr error
		want    int64 // the gated workload's records
	}{
		{"opens", nil, 7},
		{"fails", errors.New("its records had not moved to the remote tier after 2m"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var firstDone, gated atomic.Bool
			out, err := Run(context.Background(), Scenario{Name: "ticks",
				OnEnded: func(name string) {
					if name == "first" {
						firstDone.Store(true)
					}
				},
				Workloads: []Workload{
					{Name: "first", Spec: tick{n: 100}},
					{Name: "then", Spec: tick{n: 7}, AfterWorkload: "first", Gate: func(context.Context) error {
						gated.Store(firstDone.Load())
						return tt.gateErr
					}},
				}})
			o := out.Workloads[1]
			if !o.Late || !gated.Load() {
				t.Errorf("late %v, gate asked after the first workload ended: %v; want both", o.Late, gated.Load())
			}
			got := int64(0)
			if o.Publish != nil {
				got = o.Publish.Acked
			}
			if got != tt.want {
				t.Errorf("gated workload wrote %d records, want %d", got, tt.want)
			}
			if tt.gateErr != nil && (err == nil || !strings.Contains(err.Error(), `workload "then": `+tt.gateErr.Error())) {
				t.Errorf("error %v, want the gate's, naming the workload", err)
			}
			if tt.gateErr == nil && err != nil {
				t.Errorf("error %v, want none", err)
			}
		})
	}
}
