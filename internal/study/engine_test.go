package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
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
	sec := &tickSection{Ticks: e.acked, PerSecond: []int64{e.acked}}
	sec.Spacing.Merge(lat)
	return workload.Measured{Publish: &produce.ProducerResult{Start: e.epoch, End: time.Now(), Acked: e.acked, Bytes: 100 * e.acked,
		Clients: 1, Latency: lat}, Sections: map[string]measure.Section{tickSectionName: sec}}, nil
}

// tickSection is the tick kind's own measurement, of a shape no other
// kind has (a counter, a typed histogram, a series): it is registered
// here, in a test, and merges itself. No code in result knows it.
type tickSection struct {
	Ticks     int64             `json:"ticks"`
	Spacing   measure.Histogram `json:"spacing"`
	PerSecond []int64           `json:"per_second"`
}

const tickSectionName = "test.ticks"

func init() {
	measure.RegisterSection(tickSectionName, func() measure.Section { return &tickSection{} })
}

// Table lets the reports show the section with no code of their own.
func (s *tickSection) Table() measure.SectionTable {
	return measure.SectionTable{Title: "Ticks", Columns: []string{"ticks", "tick spacing max"},
		Row: []string{fmt.Sprint(s.Ticks), fmt.Sprintf("%d µs", s.Spacing.Max())}}
}

func (s *tickSection) Add(other measure.Section) error {
	o, err := measure.AddSection[*tickSection](other)
	if err != nil {
		return err
	}
	s.Ticks += o.Ticks
	s.Spacing.Merge(&o.Spacing)
	for i, n := range o.PerSecond {
		if i == len(s.PerSecond) {
			s.PerSecond = append(s.PerSecond, 0)
		}
		s.PerSecond[i] += n
	}
	return nil
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
	ks := append(Kinds(), Kind{Name: "tick", Rule: plan.TypeRule{Sends: true}, build: buildTick})
	p, err := plan.Parse("plan.yaml", []byte(text), nil, planTypesOf(ks)...)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard, not a measurement
	defer cancel()
	doc, err := Run(ctx, p, scs, Options{kinds: ks})
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
		if s, ok := w.Sections[tickSectionName].(*tickSection); !ok || s.Ticks != 1000 || s.Spacing.Count() != 1000 {
			t.Fatalf("repeat %d's tick section: %#v, want 1000 ticks", rep.Index, w.Sections[tickSectionName])
		}
	}
	// The repeats merge by the section's own Add: into the scenario's
	// statistics, and as two workers' slices of one repeat.
	wantMerged := func(where string, s measure.Section) {
		t.Helper()
		ts, ok := s.(*tickSection)
		if !ok || ts.Ticks != 2000 || ts.Spacing.Count() != 2000 || ts.Spacing.Max() != 1000 || len(ts.PerSecond) != 1 || ts.PerSecond[0] != 2000 {
			t.Errorf("%s: %#v, want 2000 ticks of 1 ms in one second", where, s)
		}
	}
	wantMerged("the repeats' statistics", doc.Plan.Scenarios[0].Aggregate.Workloads[0].Sections[tickSectionName])
	second := reps[1]
	second.Index = reps[0].Index
	merged, err := result.MergeRepeats([]result.Repeat{reps[0], second})
	if err != nil {
		t.Fatal(err)
	}
	wantMerged("two workers' slices", merged.Workloads[0].Sections[tickSectionName])
	dir := t.TempDir()
	if err := errors.Join(result.Write(filepath.Join(dir, "result.json"), doc), report.WriteAll(dir, doc)); err != nil {
		t.Fatal(err)
	}
	// Only writing encodes the section's histogram; reading decodes it
	// into its type again.
	back, err := result.Read(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantMerged("read back", back.Plan.Scenarios[0].Aggregate.Workloads[0].Sections[tickSectionName])
	for _, f := range []string{"result.json", "summary.md", "summary.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v (%v)", f, err, fi)
		}
	}
	// The reports show the section as it describes itself.
	for _, f := range []string{"summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want := "| ticker | 2 | 2000 | 1000 µs |" // the merged repeats'
		if f == "report.html" {
			want = "tick spacing max"
		}
		if !strings.Contains(string(b), "Ticks") || !strings.Contains(string(b), want) {
			t.Errorf("%s lacks the tick section's figures (%q)", f, want)
		}
	}
}
