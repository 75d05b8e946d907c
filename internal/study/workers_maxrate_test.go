package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/coord/memcoord"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// fakeCapacity is the total rate (records/s) the fake cluster of the
// distributed search tests takes within their SLO; fakeClients the rate:
// max workload's clients, split among the workers.
const (
	fakeCapacity = 7000
	fakeClients  = 10
	fakeLimit    = 50 * time.Millisecond
)

// fakeProbe is what a run of clients [first, first+n) of fakeClients
// measures at a probe of total rate total (0: full speed) for d, on a
// cluster of fakeCapacity: each client's latencies spread around a base
// that grows as the total nears saturation (1.25 × capacity), later
// clients slower, so that the merged p99 is no one worker's; the rate
// reached falls short past saturation. Deterministic: one process running
// every client measures what the workers' slices merge to.
func fakeProbe(first, n int, total float64, d time.Duration) result.Repeat {
	const perClient = 500
	sat := 1.25 * fakeCapacity
	baseMs, reached := 400.0, 0.97*sat // full speed
	if total > 0 {
		baseMs, reached = 1000, min(total, 0.97*sat)
		if x := total / sat; x < 1 {
			baseMs = 10 / (1 - x)
		}
	}
	h := measure.NewHistogram()
	for c := first; c < first+n; c++ {
		for j := range perClient {
			h.Record(int64(1000 * baseMs * (0.5 + float64(c)/fakeClients) * (0.2 + float64(j)/perClient)))
		}
	}
	lat, err := result.LatencyOf(h)
	if err != nil {
		panic(err)
	}
	secs := d.Seconds()
	records := int64(reached * float64(n) / fakeClients * secs)
	prod := &result.Producer{Clients: n, Records: records, DurationSeconds: secs, RecordsPerSec: float64(records) / secs, LatencyFrom: "intended", Latency: lat}
	now := time.Now()
	return result.Repeat{Index: 1, StartedAt: now, EndedAt: now, Status: result.StatusOK,
		Workloads: []result.Workload{{Name: "w", Type: "produce", Producer: prod}}}
}

// fakeSearchPlan is the search the tests run: a warm-up, one probe a
// rate, five confirming runs.
func fakeSearchPlan() *plan.Scenario {
	mr := &plan.MaxRate{Percentile: 0.99, Limit: fakeLimit, Start: 1000, Probes: 1, Confirm: 5, WarmCluster: time.Second, Floor: 100, MaxTime: time.Hour}
	return &plan.Scenario{Name: "s", Workloads: []plan.Workload{{Name: "w", Type: "produce", MaxRate: mr}}}
}

// fakeWhole is the scenario's rate: max workload before slicing.
func fakeWhole(t *testing.T) runner.Workload {
	return runner.Workload{Name: "w", Spec: workload.Produce{Spec: produce.ProducerSpec{Clients: fakeClients, Rate: 1000, Duration: 10 * time.Second, Values: values(t)}}}
}

// singleSearch runs the search in one process on the fake cluster.
func singleSearch(t *testing.T) result.Repeat {
	t.Helper()
	probe := func(r float64, d time.Duration) (result.Repeat, bool) {
		return fakeProbe(0, fakeClients, r, d), true
	}
	spec := fakeWhole(t).Spec.(workload.Producing).Producer()
	return runMaxRate(context.Background(), probe, spec, fakeSearchPlan(), 0, 1, func(string) {}, nil)
}

// TestDistributedSearch: five goroutine workers on the in-memory
// coordinator search the fake cluster, worker 0 deciding each probe and
// judging it on the merge of every worker's share; the search converges
// to the single-process search's answer on the same fake, by the same
// probes, each run by every worker. A worker lost mid-search (killed at a
// probe's run) ends the search with the loss recorded, and worker 0 lost
// ends it on every other worker: nobody hangs.
func TestDistributedSearch(t *testing.T) {
	t.Parallel()
	single := singleSearch(t)
	sf := single.Workloads[0].MaxRate
	if single.Status != result.StatusOK || sf.Rate <= 0 || sf.Rate > fakeCapacity {
		t.Fatalf("the single-process search: %s %s, rate %.0f", single.Status, single.Error, sf.Rate)
	}
	const workers = 5
	tests := []struct {
		name string
		// lose kills worker lose.worker as its share of probe lose.at runs.
		lose        *struct{ worker, at int }
		want0       string // worker 0's outcome (status: error)
		wantOthers  string
		wantSameAns bool
	}{
		{name: "every worker runs every probe", want0: `^ok: $`, wantOthers: `^ok: $`, wantSameAns: true},
		{name: "a worker lost mid-search", lose: &struct{ worker, at int }{3, 4},
			want0: `^failed: worker 3: lost`, wantOthers: `^failed: worker 0's rate search: worker 3: lost`},
		{name: "worker 0 lost mid-search", lose: &struct{ worker, at int }{0, 4},
			wantOthers: `^failed: (the rate search: .*worker 0 was lost|barrier s1\.r1\.p4\.\w+: worker 0, which sets the start, was lost|.*context canceled)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := memcoord.New()
			reps := make([]result.Repeat, workers)
			var wg sync.WaitGroup
			for i := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					lose := -1
					if tt.lose != nil && tt.lose.worker == i {
						lose = tt.lose.at
					}
					reps[i] = searchMemWorker(t, h, i, workers, lose)
				}()
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the workers did not end within 60 s")
			}
			outcome := func(rep result.Repeat) string { return rep.Status + ": " + rep.Error }
			if tt.want0 != "" && !regexp.MustCompile(tt.want0).MatchString(outcome(reps[0])) {
				t.Errorf("worker 0's outcome %q, want %q", outcome(reps[0]), tt.want0)
			}
			for i := 1; i < workers; i++ {
				if tt.lose != nil && i == tt.lose.worker {
					continue
				}
				if !regexp.MustCompile(tt.wantOthers).MatchString(outcome(reps[i])) {
					t.Errorf("worker %d's outcome %q, want %q", i, outcome(reps[i]), tt.wantOthers)
				}
			}
			if tt.lose != nil && tt.lose.worker != 0 {
				checkLostSearch(t, reps[0])
			}
			if tt.wantSameAns {
				checkSameSearch(t, reps[0], sf, workers)
			}
		})
	}
}

// checkSameSearch: worker 0's search asked the single-process search's
// probes, judged them alike, and confirmed its answer; every worker ran
// every probe.
func checkSameSearch(t *testing.T, rep result.Repeat, sf *result.MaxRate, workers int) {
	t.Helper()
	k := workloadNamed(rep, "w")
	if k < 0 || rep.Workloads[k].MaxRate == nil {
		t.Fatalf("worker 0's repeat has no search: %+v", rep)
	}
	df := rep.Workloads[k].MaxRate
	t.Logf("answer %.0f records/s (found %.0f) after %d probes", df.Rate, df.Found, len(df.Probes))
	if df.Rate != sf.Rate || df.Found != sf.Found || len(df.Confirmations) != len(sf.Confirmations) {
		t.Errorf("distributed: rate %.0f, found %.0f, %d confirmation(s); single process: rate %.0f, found %.0f, %d",
			df.Rate, df.Found, len(df.Confirmations), sf.Rate, sf.Found, len(sf.Confirmations))
	}
	if len(df.Probes) != len(sf.Probes) {
		t.Fatalf("distributed: %d probes, single process %d", len(df.Probes), len(sf.Probes))
	}
	for j, p := range df.Probes {
		s := sf.Probes[j]
		if p.Rate != s.Rate || p.OK != s.OK || p.Warmup != s.Warmup || p.Confirm != s.Confirm || p.LatencyMs != s.LatencyMs {
			t.Errorf("probe %d: distributed %+v, single process %+v", j+1, p, s)
		}
		if len(p.Workers) != workers {
			t.Errorf("probe %d ran on workers %v, want all %d", j+1, p.Workers, workers)
		}
	}
	if rep.Status != result.StatusOK || !df.Confirmations[len(df.Confirmations)-1].Confirmed {
		t.Errorf("the answer is not confirmed: %s %s", rep.Status, rep.Error)
	}
}

// checkLostSearch: the search a lost worker ended keeps its probes so far.
func checkLostSearch(t *testing.T, rep result.Repeat) {
	t.Helper()
	k := workloadNamed(rep, "w")
	if k < 0 || rep.Workloads[k].MaxRate == nil || len(rep.Workloads[k].MaxRate.Probes) < 3 {
		t.Fatalf("worker 0's failed search lost its probes: %+v", rep)
	}
	if f := rep.Workloads[k].MaxRate; f.Rate != 0 {
		t.Errorf("a failed search answered %.0f records/s", f.Rate)
	}
}

// searchMemWorker is worker i of a distributed search on h: it joins,
// searches as the session does, with the fake cluster's probes, and
// finishes. lose > 0 kills it (its coordinator closed, no leave) as its
// share of that probe runs.
func searchMemWorker(t *testing.T, h *memcoord.Hub, i, workers, lose int) result.Repeat {
	ctx := context.Background()
	o := memOpts
	d := &Distributed{Run: coord.Run{ID: "search", Workers: workers, Index: i, Plan: "p", Version: "v"}, Coord: o, Keep: true, Join: memJoin(h)}
	w, err := d.Join(ctx, nil, d.Run, o)
	if err != nil {
		t.Errorf("worker %d: join: %v", i, err)
		return result.Repeat{}
	}
	wk := newWorker(d, w, nil, io.Discard)
	whole := fakeWhole(t)
	sc, err := sliceScenario(runner.Scenario{Name: "s", Workloads: []runner.Workload{whole}}, i, workers)
	if err != nil {
		t.Errorf("worker %d: slice: %v", i, err)
	}
	first, n := i*fakeClients/workers, fakeClients/workers
	var probes atomic.Int32
	run := func(ctx context.Context, sc runner.Scenario) result.Repeat {
		k := int(probes.Add(1))
		if err := sc.TopicsReady(ctx); err != nil {
			return failedProbe(1, err)
		}
		if _, err := sc.Start(ctx); err != nil {
			return failedProbe(1, err)
		}
		if k == lose {
			w.Close()
			return failedProbe(1, errors.New("killed"))
		}
		spec := sc.Workloads[0].Spec.(workload.Producing).Producer()
		if spec.Clients != n {
			return failedProbe(1, fmt.Errorf("a share of %d clients, want %d", spec.Clients, n))
		}
		return fakeProbe(first, n, spec.Rate*fakeClients/float64(n), spec.Duration)
	}
	ps := fakeSearchPlan()
	if i != 0 {
		ps = withoutFaults(ps)
	}
	rep := wk.search(ctx, 1, 1, sc, whole, 0, RepeatEnv{Scenario: ps}, run)
	var doc *result.Document
	if i == 0 {
		doc = result.New(result.KindPlan, "search", time.Now(), nil)
		doc.Plan = &result.PlanRun{}
	}
	wk.finish(ctx, doc, nil)
	return rep
}
