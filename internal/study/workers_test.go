package study

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestSliceScenario: each worker of a distributed run gets its share of
// the workloads that split (whole clients, the rate in proportion), a
// workload of fewer clients than workers leaves the last workers without
// it, a kind that does not split runs whole on worker 0, and only worker 0
// prepares the topics.
func TestSliceScenario(t *testing.T) {
	sc := runner.Scenario{Name: "s", Topics: []runner.Topic{{TopicSpec: kadmin.TopicSpec{Name: "t"}}}, Workloads: []runner.Workload{
		{Name: "producers", Spec: workload.Produce{Spec: produce.ProducerSpec{Topic: "t", Clients: 3, Rate: 900, Records: 9000}}},
		{Name: "one", Spec: workload.Produce{Spec: produce.ProducerSpec{Topic: "t", Clients: 1, Rate: 100, Records: 1000}}},
		{Name: "ticks", Spec: tick{n: 5}},
	}}
	tests := []struct {
		index     int
		workloads []string
		topics    int
	}{
		{index: 0, workloads: []string{"producers", "one", "ticks"}, topics: 1},
		{index: 1, workloads: []string{"producers"}, topics: 0},
		{index: 2, workloads: []string{"producers"}, topics: 0},
	}
	var rate float64
	var records int64
	for _, tt := range tests {
		got, err := sliceScenario(sc, tt.index, 3)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, w := range got.Workloads {
			names = append(names, w.Name)
			if p, ok := w.Spec.(workload.Produce); ok && w.Name == "producers" {
				if p.Spec.Clients != 1 {
					t.Errorf("worker %d: %d producer clients, want 1", tt.index, p.Spec.Clients)
				}
				rate += p.Spec.Rate
				records += p.Spec.Records
			}
		}
		if len(names) != len(tt.workloads) || len(got.Topics) != tt.topics {
			t.Errorf("worker %d: workloads %v and %d topic(s), want %v and %d", tt.index, names, len(got.Topics), tt.workloads, tt.topics)
		}
		for i := range names {
			if i < len(tt.workloads) && names[i] != tt.workloads[i] {
				t.Errorf("worker %d: workloads %v, want %v", tt.index, names, tt.workloads)
				break
			}
		}
	}
	if rate != 900 || records != 9000 {
		t.Errorf("the shares add up to %.0f records/s and %d records, want the workload's 900 and 9000", rate, records)
	}
	if len(sc.Workloads) != 3 || len(sc.Topics) != 1 {
		t.Error("slicing changed the scenario it was given")
	}
}

// TestFinishInterruptedDeletesTopics guards worker 0 interrupted while it
// waits for the others to leave at the end: the Ctrl-C cancelled the
// deletion of the run's topics too, and they stayed behind.
func TestFinishInterruptedDeletesTopics(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	o := coord.Options{Heartbeat: 50 * time.Millisecond, LostAfter: 5 * time.Second, StartMargin: 100 * time.Millisecond}
	ws := make([]*coord.Worker, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[i], errs[i] = coord.Join(context.Background(), opts, coord.Run{ID: "finish", Workers: 2, Index: i, Plan: "p", Version: "v"}, o)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	defer ws[1].Close() // worker 1 stays, heartbeating: worker 0 waits for its leave
	d := &Distributed{Run: coord.Run{ID: "finish", Workers: 2}}
	wk := &worker{d: d, w: ws[0], admin: opts, progress: io.Discard, merge: newSliceMerger("finish", 2)}
	ctx, interrupt := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, interrupt) // Ctrl-C while it waits
	doc := result.New(result.KindPlan, "test", time.Now(), nil)
	doc.Plan = &result.PlanRun{}
	wk.finish(ctx, doc, context.Canceled)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	control, results := coord.Topics("finish")
	topics, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if names := topics.Names(); slices.Contains(names, control) || slices.Contains(names, results) {
		t.Errorf("the run's topics %v are left behind after worker 0's Ctrl-C", names)
	}
}
