package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/coord/memcoord"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/userr"
)

var _ Coordinator = (*memcoord.Worker)(nil)

// memJoin is the JoinFunc of an in-memory run on h.
func memJoin(h *memcoord.Hub) JoinFunc {
	return func(ctx context.Context, _ []kgo.Opt, run coord.Run, o coord.Options) (Coordinator, error) {
		w, err := h.Join(ctx, run, o)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
}

// phase is a moment of a worker's repeat at which the test makes it
// disappear (its process killed: no leave) or fail.
type phase int

const (
	beforeTopics   phase = iota + 1 // in its repeat, before the topics barrier
	beforeStart                     // between the two barriers
	running                         // after the common start
	beforeReadBack                  // its workloads ended, before the read-back barrier (verify)
	afterRepeat                     // after its repeat 1 was published (and, on worker 0, merged)
)

// memWorkers are the workers of the in-memory runs: enough that a wait
// that grew with the workers, or a race among them, shows.
const memWorkers = 100

// memOpts are short bounds: a worker closed without leaving is lost after
// 150 ms.
var memOpts = coord.Options{LostAfter: 150 * time.Millisecond, JoinTimeout: 10 * time.Second,
	BarrierTimeout: 10 * time.Second, ResultTimeout: 10 * time.Second, StartMargin: time.Millisecond}

// memOutcome is what one worker ended with: a line per repeat it ran
// (worker 0: the merged repeat) and why it stopped early.
type memOutcome struct {
	join    error
	repeats []result.Repeat
	over    error
	late    error // joinTwice's
	lost    []int // worker 0: the run's lost workers, from its document
}

func (o memOutcome) String() string {
	var b strings.Builder
	if o.join != nil {
		fmt.Fprintf(&b, "join: %v\n", o.join)
	}
	for _, r := range o.repeats {
		fmt.Fprintf(&b, "repeat %d: %s: %s\n", r.Index, r.Status, r.Error)
	}
	if o.late != nil {
		fmt.Fprintf(&b, "late join: %v\n", o.late)
	}
	if o.over != nil {
		fmt.Fprintf(&b, "over: %v\n", o.over)
	}
	return b.String()
}

// memCase is one run of memWorkers workers through the study's worker
// state machine (worker.repeat and finish) on an in-memory coordinator.
type memCase struct {
	name string
	// lose closes worker lose.worker (as if killed) at lose.at of repeat 1.
	lose *struct {
		worker int
		at     phase
	}
	// fail0 fails worker 0's repeat 1 at this phase (its topics or its
	// engines): it calls the repeat off.
	fail0 phase
	// publish fails publishes (memcoord.Hub.PublishErr).
	publish func(worker int, name string, slice []byte) error
	// late joins the last worker this long after the others; joinTimeout
	// and resultTimeout replace memOpts'.
	late, joinTimeout, resultTimeout time.Duration
	// joinTwice has worker 0 try to join a second worker 7 after repeat 1.
	joinTwice bool
	// verify: the repeats read their topics back, after a third barrier.
	verify bool
	// workers replaces memWorkers (a benchmark's 10, 100 and 1,000).
	workers int

	// want0 match worker 0's outcome; wantOthers every other worker's but
	// the one lost or failing (exempt); wantLost is worker 0's lost list.
	want0, wantOthers []string
	wantLost          []int
	exempt            int
	wantLate          string // the late worker's outcome
}

// TestWorkersInMemory drives 100 goroutine workers through two repeats of
// the study's worker state machine on an in-memory coordinator: the
// barriers, a worker lost at each phase (worker 0 and another), worker 0
// calling a repeat off, late joiners, and slices that cannot be published.
func TestWorkersInMemory(t *testing.T) {
	t.Parallel()
	lose := func(w int, at phase) *struct {
		worker int
		at     phase
	} {
		return &struct {
			worker int
			at     phase
		}{w, at}
	}
	const k = 42 // a worker with a client: the lost one or the one failing
	lostK := `repeat 1: failed: .*worker 42: lost`
	tooLarge := errors.New("slice too large for the results topic")
	tests := []memCase{
		{name: "every worker meets", exempt: -1,
			want0: []string{`(?m)^repeat 1: ok: $`, `(?m)^repeat 2: ok: $`}, wantOthers: []string{`(?m)^repeat 1: ok: $`, `(?m)^repeat 2: ok: $`}},
		{name: "worker lost before the topics barrier", lose: lose(k, beforeTopics), exempt: k, wantLost: []int{k},
			want0: []string{lostK, `repeat 2: failed: worker 42: lost before this repeat began`}, wantOthers: []string{`repeat 1: failed: worker 0's merge of the repeat: worker 42: lost`}},
		{name: "worker lost between the barriers", lose: lose(k, beforeStart), exempt: k, wantLost: []int{k},
			want0: []string{lostK}, wantOthers: []string{`repeat 1: failed: worker 0's merge`}},
		{name: "worker lost while running", lose: lose(k, running), exempt: k, wantLost: []int{k},
			want0: []string{`repeat 1: failed: worker 42: lost: no result slice`}, wantOthers: []string{`repeat 1: failed: worker 0's merge`}},
		{name: "worker lost after its slice", lose: lose(k, afterRepeat), exempt: k, wantLost: []int{k},
			want0: []string{`(?m)^repeat 1: ok: $`, `repeat 2: failed: worker 42: lost before this repeat began`}, wantOthers: []string{`(?m)^repeat 1: ok: $`, `repeat 2: failed: worker 0's merge`}},
		// The barrier ends on the loss itself or on the watch that saw
		// the run over (the context's cancel), whichever comes first.
		{name: "worker 0 lost before the topics barrier", lose: lose(0, beforeTopics), exempt: -1,
			wantOthers: []string{`repeat 1: failed: barrier s1.r1.topics: (worker 0, which sets the start, was lost|context canceled)`, `over: .*worker 0 was lost`}},
		{name: "worker 0 lost between the barriers", lose: lose(0, beforeStart), exempt: -1,
			wantOthers: []string{`repeat 1: failed: barrier s1.r1.start: (worker 0, which sets the start, was lost|context canceled)`, `over: .*worker 0 was lost`}},
		{name: "worker 0 lost while running", lose: lose(0, running), exempt: -1,
			wantOthers: []string{`(?m)^repeat 1: ok: $`, `over: .*worker 0 was lost`}},
		{name: "worker 0 lost after its merge", lose: lose(0, afterRepeat), exempt: -1,
			wantOthers: []string{`(?m)^repeat 1: ok: $`, `over: .*worker 0 was lost`}},
		{name: "worker 0 calls off at the topics barrier", fail0: beforeTopics, exempt: -1,
			want0:      []string{`repeat 1: failed: worker 0: prepare the topics: boom`, `worker 1: barrier s1.r1.topics: worker 0 called the repeat off: prepare the topics: boom`, `(?m)^repeat 2: ok: $`},
			wantOthers: []string{`repeat 1: failed: barrier s1.r1.topics: worker 0 called the repeat off`, `(?m)^repeat 2: ok: $`}},
		{name: "worker 0 calls off at the start barrier", fail0: beforeStart, exempt: -1,
			want0:      []string{`worker 99: barrier s1.r1.start: worker 0 called the repeat off: prepare the engines: boom`, `(?m)^repeat 2: ok: $`},
			wantOthers: []string{`repeat 1: failed: barrier s1.r1.start: worker 0 called the repeat off`, `(?m)^repeat 2: ok: $`}},
		{name: "a slice too large is replaced by a failed one", exempt: k,
			publish: func(w int, _ string, slice []byte) error {
				if w == k && !strings.Contains(string(slice), "publish this worker's result slice") { // the replacement says why
					return tooLarge
				}
				return nil
			},
			want0:      []string{`repeat 1: failed: worker 42: publish this worker's result slice: .*slice too large`},
			wantOthers: []string{`repeat 1: failed: worker 0's merge of the repeat: worker 42: publish`}},
		{name: "a worker that can publish nothing is missing", exempt: k, wantLost: []int{k}, resultTimeout: 500 * time.Millisecond,
			publish: func(w int, _ string, _ []byte) error {
				if w == k {
					return tooLarge
				}
				return nil
			},
			want0: []string{`repeat 1: failed: worker 42: lost: no result slice`}, wantOthers: []string{`repeat 1: failed: worker 0's merge`}},
		{name: "a late joiner within the bound", late: 200 * time.Millisecond, exempt: -1,
			want0: []string{`(?m)^repeat 2: ok: $`}, wantOthers: []string{`(?m)^repeat 2: ok: $`}, wantLate: `(?m)^repeat 2: ok: $`},
		{name: "a late joiner after the bound", late: 600 * time.Millisecond, joinTimeout: 300 * time.Millisecond, exempt: memWorkers - 1,
			// Each gives up on its own bound, or on the leave of one that
			// gave up first.
			want0:      []string{`join: (worker\(s\) 99 of run "mem" did not join within 300ms|worker \d+ left run "mem" before it began)`},
			wantOthers: []string{`join: (worker\(s\) 99 of run "mem" did not join within 300ms|worker \d+ left run "mem" before it began)`},
			wantLate:   `join: worker \d+ left run "mem" before it began`},
		{name: "verified: every worker meets before the read-back", verify: true, exempt: -1,
			want0: []string{`(?m)^repeat 1: ok: $`, `(?m)^repeat 2: ok: $`}, wantOthers: []string{`(?m)^repeat 1: ok: $`, `(?m)^repeat 2: ok: $`}},
		{name: "verified: a worker lost before the read-back", verify: true, lose: lose(k, beforeReadBack), exempt: k, wantLost: []int{k},
			want0: []string{`repeat 1: failed: worker 42: lost: no result slice`}, wantOthers: []string{`repeat 1: failed: worker 0's merge`}},
		{name: "a second worker with a taken index mid-run", joinTwice: true, exempt: -1,
			want0:      []string{`(?m)^repeat 1: ok: $`, `late join: .*two workers have index 7 on run "mem"`, `(?m)^repeat 2: ok: $`},
			wantOthers: []string{`(?m)^repeat 1: ok: $`, `(?m)^repeat 2: ok: $`}},
	}
	for _, tt := range tests {
		if tt.late == 0 && tt.wantLate != "" {
			t.Fatalf("%s: wantLate without a late worker", tt.name)
		}
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			h := memcoord.New()
			h.PublishErr = tt.publish
			outs := runInMemory(t, h, tt)
			t.Logf("%d workers in %s", memWorkers, time.Since(began))
			check := func(who string, out memOutcome, wants []string) {
				t.Helper()
				for _, want := range wants {
					if !regexp.MustCompile(want).MatchString(out.String()) {
						t.Errorf("%s's outcome:\n%s\nwant it to match %q", who, out, want)
					}
				}
			}
			check("worker 0", outs[0], tt.want0)
			for i := 1; i < memWorkers; i++ {
				if i == tt.exempt || tt.lose != nil && i == tt.lose.worker || tt.late > 0 && i == memWorkers-1 {
					continue
				}
				check(fmt.Sprintf("worker %d", i), outs[i], tt.wantOthers)
			}
			if tt.wantLate != "" {
				check("the late worker", outs[memWorkers-1], []string{tt.wantLate})
			}
			if tt.lose == nil || tt.lose.worker != 0 {
				if outs[0].join == nil && !slices.Equal(outs[0].lost, tt.wantLost) {
					t.Errorf("worker 0's document lists workers %v as lost, want %v", outs[0].lost, tt.wantLost)
				}
			}
		})
	}
}

// runInMemory runs tt's workers on h, each in its own goroutine, and
// returns their outcomes by index.
func runInMemory(t testing.TB, h *memcoord.Hub, tt memCase) []memOutcome {
	t.Helper()
	n := tt.n()
	outs := make([]memOutcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if tt.late > 0 && i == n-1 {
				time.Sleep(tt.late)
			}
			outs[i] = runMemWorker(h, i, tt)
		}()
	}
	wg.Wait()
	return outs
}

// n is how many workers the case runs.
func (tt memCase) n() int {
	if tt.workers > 0 {
		return tt.workers
	}
	return memWorkers
}

// runMemWorker is one worker: it joins, runs the plan's two repeats of
// scenario 1 as the session does (repeatScenario: none once the run is
// over for it), and finishes.
func runMemWorker(h *memcoord.Hub, i int, tt memCase) memOutcome {
	ctx := context.Background()
	o := memOpts
	if tt.joinTimeout > 0 {
		o.JoinTimeout = tt.joinTimeout
	}
	if tt.resultTimeout > 0 {
		o.ResultTimeout = tt.resultTimeout
	}
	d := &Distributed{Run: coord.Run{ID: "mem", Workers: tt.n(), Index: i, Plan: "p", Version: "v"}, Coord: o, Keep: true, Join: memJoin(h)}
	w, err := d.Join(ctx, nil, d.Run, o)
	if err != nil {
		return memOutcome{join: err}
	}
	wk := newWorker(d, w, nil, io.Discard)
	wk.verifies = tt.verify
	// Odd workers run no client of the scenario: they only meet the
	// others at the barriers (a workload of fewer clients than workers).
	sc := runner.Scenario{Name: "s"}
	if i%2 == 0 {
		sc.Workloads = []runner.Workload{{Name: "w"}}
	}
	var out memOutcome
	mine := tt.lose != nil && tt.lose.worker == i
	for r := 1; r <= 2; r++ {
		if err := wk.over(); err != nil {
			out.over = err
			break
		}
		run := func(ctx context.Context, sc runner.Scenario) result.Repeat {
			var at phase
			if r == 1 && mine {
				at = tt.lose.at
			}
			fail := phase(0)
			if r == 1 && i == 0 {
				fail = tt.fail0
			}
			var readBack func(context.Context) error
			if tt.verify {
				readBack = wk.readBack
			}
			return fakeRepeat(ctx, sc, r, at, fail, w, readBack)
		}
		rep := wk.repeat(ctx, 1, r, sc, run)
		out.repeats = append(out.repeats, rep)
		if r == 1 && mine && tt.lose.at == afterRepeat {
			w.Close()
		}
		if r == 1 && i == 0 && tt.joinTwice {
			second := d.Run
			second.Index = 7
			if w, err := d.Join(ctx, nil, second, o); err != nil {
				out.late = err
			} else {
				w.Close()
				out.late = errors.New("joined")
			}
		}
	}
	if out.over == nil {
		// Why the run is over for it at the end, if it is: a barrier of
		// the last repeat may end on the watch's cancel instead of on
		// worker 0's loss itself.
		out.over = wk.over()
	}
	var doc *result.Document
	if i == 0 {
		doc = result.New(result.KindPlan, "mem", time.Now(), nil)
		doc.Plan = &result.PlanRun{}
	}
	wk.finish(ctx, doc, nil)
	if doc != nil && doc.Plan.Distributed != nil {
		out.lost = doc.Plan.Distributed.Lost
	}
	return out
}

// fakeRepeat is a repeat as the runner runs it, without engines: the
// topics barrier, the start barrier, then done. Its worker is closed
// (killed) at lose, or its repeat fails at fail, as a repeat whose topics
// or engines failed does: it never reaches the barriers after.
func fakeRepeat(ctx context.Context, sc runner.Scenario, r int, lose, fail phase, w Coordinator, readBack func(context.Context) error) result.Repeat {
	rep := result.Repeat{Index: r, StartedAt: time.Now(), Status: result.StatusOK}
	end := func(err error) result.Repeat {
		rep.EndedAt = time.Now()
		if err != nil {
			rep.Status, rep.Error = result.StatusFailed, err.Error()
		}
		return rep
	}
	at := func(p phase) error {
		switch p {
		case lose:
			w.Close()
			return errors.New("killed")
		case fail:
			if p == beforeTopics {
				return errors.New("prepare the topics: boom")
			}
			return errors.New("prepare the engines: boom")
		}
		return nil
	}
	if err := at(beforeTopics); err != nil {
		return end(err)
	}
	if err := sc.TopicsReady(ctx); err != nil {
		return end(err)
	}
	if err := at(beforeStart); err != nil {
		return end(err)
	}
	if _, err := sc.Start(ctx); err != nil {
		return end(err)
	}
	if err := at(running); err != nil || readBack == nil {
		return end(err)
	}
	if err := at(beforeReadBack); err != nil {
		return end(err)
	}
	return end(readBack(ctx))
}

// TestMemJoinRefusesLateWorkers: a second worker with a taken index is
// refused while the run goes on, and any worker once worker 0 ended it,
// as coord refuses them.
func TestMemJoinRefusesLateWorkers(t *testing.T) {
	t.Parallel()
	h := memcoord.New()
	run := func(i int) coord.Run { return coord.Run{ID: "late", Workers: 3, Index: i, Plan: "p", Version: "v"} }
	ws := make([]*memcoord.Worker, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[i], errs[i] = h.Join(context.Background(), run(i), memOpts)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	other := run(1)
	other.Plan = "q"
	tests := []struct {
		name string
		run  coord.Run
		end  bool // worker 0 ended the run first
		want string
	}{
		{"a taken index", run(1), false, `two workers have index 1 on run "late"`},
		{"another plan", other, false, `has worker 0 of another run`},
		{"an index out of range", run(3), false, `--worker-index 3 is out of range`},
		{"a run that ended", run(2), true, `run id "late" is in use`},
	}
	for _, tt := range tests { // in order: the last ends the run
		if tt.end {
			if err := ws[0].End(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		w, err := h.Join(context.Background(), tt.run, memOpts)
		if err == nil {
			w.Close()
			t.Errorf("%s: joined", tt.name)
			continue
		}
		if !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v (user error: %v), want a user error containing %q", tt.name, err, userr.Is(err), tt.want)
		}
	}
	for _, w := range ws {
		w.Close()
	}
}

// BenchmarkWorkersInMemory: a run of n workers (join, two repeats of
// two barriers each, slices published and merged by worker 0, the end)
// on the in-memory coordinator: the state machine's cost as the workers
// grow, apart from Kafka's (docs/distributed.md, "Scale").
//
//	go test -run X -bench WorkersInMemory -benchtime 3x ./internal/study/
func BenchmarkWorkersInMemory(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				outs := runInMemory(b, memcoord.New(), memCase{workers: n, verify: true})
				if got := outs[0].String(); !strings.Contains(got, "repeat 2: ok") {
					b.Fatalf("worker 0: %s", got)
				}
			}
		})
	}
}
