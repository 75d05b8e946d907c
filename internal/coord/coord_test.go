package coord

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/userr"
)

// fast are short bounds for in-process workers on a fake cluster.
var fast = Options{Heartbeat: 50 * time.Millisecond, LostAfter: 600 * time.Millisecond, JoinTimeout: 20 * time.Second,
	BarrierTimeout: 20 * time.Second, ResultTimeout: 20 * time.Second, StartMargin: 200 * time.Millisecond}

func fakeOpts(t *testing.T) []kgo.Opt {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// A plan's client options start reading at the end (the Java
	// consumer's auto.offset.reset=latest): the run's topics must still be
	// read from the start (a real run's slices went unread).
	return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeStartOffset(kgo.NewOffset().AtEnd()), kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd())}
}

func run(id string, workers, index int) Run {
	return Run{ID: id, Workers: workers, Index: index, Plan: "p1", Version: "v1"}
}

// joinAll joins n workers at once, as the pods of a Job start.
func joinAll(t *testing.T, opts []kgo.Opt, id string, n int) []*Worker {
	t.Helper()
	ws := make([]*Worker, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[i], errs[i] = Join(context.Background(), opts, run(id, n, i), fast)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
	}
	t.Cleanup(func() {
		for _, w := range ws {
			if w != nil {
				w.Close()
			}
		}
	})
	return ws
}

// TestWorkersMeetAndMerge: three workers join, agree on one start per
// barrier, publish their slices and worker 0 gets all three; their clock
// offsets on one machine are within their uncertainty of zero; control
// traffic is counted.
func TestWorkersMeetAndMerge(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "meet", 3)
	for _, w := range ws {
		c := w.Clock()
		if c.Samples != clockSamples || c.UncertaintyMs <= 0 || math.Abs(c.OffsetMs) > c.UncertaintyMs+1 {
			t.Errorf("worker %d clock %+v: one machine's offset is within its uncertainty of 0", w.run.Index, c)
		}
	}
	for _, barrier := range []string{"s1/r1", "s1/r2"} {
		starts := make([]time.Time, 3)
		members := make([][]int, 3)
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 100 * time.Millisecond) // arrive apart
				starts[i], members[i], errs[i] = w.Barrier(context.Background(), barrier)
			}()
		}
		wg.Wait()
		for i := range ws {
			if errs[i] != nil {
				t.Fatalf("worker %d at %s: %v", i, barrier, errs[i])
			}
			if !slices.Equal(members[i], []int{0, 1, 2}) {
				t.Errorf("worker %d at %s: members %v", i, barrier, members[i])
			}
			// One clock here: the starts agree within the offsets' stated
			// uncertainties.
			bound := time.Duration((ws[i].Clock().UncertaintyMs + ws[0].Clock().UncertaintyMs) * float64(time.Millisecond))
			if d := starts[i].Sub(starts[0]).Abs(); d > bound {
				t.Errorf("worker %d starts %v from worker 0 at %s, beyond the clocks' uncertainty %v", i, d, barrier, bound)
			}
		}
		if time.Until(starts[0]) < -fast.StartMargin {
			t.Errorf("start %v is long past: the margin is after the last arrival", starts[0])
		}
	}
	for i, w := range ws {
		if err := w.Publish(context.Background(), "s1/r1", []byte(fmt.Sprintf("slice %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	got, missing, err := ws[0].Slices(context.Background(), "s1/r1", []int{0, 1, 2})
	if err != nil || len(missing) != 0 || len(got) != 3 || string(got[2]) != "slice 2" {
		t.Fatalf("slices %v, missing %v, err %v", got, missing, err)
	}
	all, err := ReadResults(context.Background(), opts, "meet")
	if err != nil || len(all.First("s1/r1")) != 3 || len(all.Ignored) != 0 {
		t.Fatalf("collect read %+v, %v", all, err)
	}
	if b := ws[1].ControlBytes(); b == 0 || b > 10_000 {
		t.Errorf("worker 1 wrote %d control bytes in its first seconds", b)
	}
}

// TestLostWorker: a worker that stops (killed: no leave) is reported lost
// within LostAfter plus a heartbeat, and the others start the next
// barrier and collect their slices without it.
func TestLostWorker(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "lost", 3)
	ws[2].Close() // as if killed
	ws[2] = nil
	began := time.Now()
	var wg sync.WaitGroup
	members := make([][]int, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, members[i], errs[i] = ws[i].Barrier(context.Background(), "s1/r1")
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || !slices.Equal(members[i], []int{0, 1}) {
			t.Fatalf("worker %d: members %v, %v", i, members[i], errs[i])
		}
	}
	if took := time.Since(began); took > fast.LostAfter+fast.StartMargin+5*time.Second { // a hang guard, not a measurement
		t.Errorf("barrier took %v with a lost worker", took)
	}
	if lost := ws[0].Lost(); !slices.Equal(lost, []int{2}) {
		t.Errorf("lost %v, want [2]", lost)
	}
	// Worker 1 reads worker 0's heartbeats only: it judges nobody else.
	if lost := ws[1].Lost(); len(lost) != 0 {
		t.Errorf("worker 1 takes %v as lost; it reads no heartbeat but worker 0's", lost)
	}
	for i := range 2 {
		if err := ws[i].Publish(context.Background(), "s1/r1", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	got, missing, err := ws[0].Slices(context.Background(), "s1/r1", []int{0, 1, 2})
	if err != nil || len(got) != 2 || !slices.Equal(missing, []int{2}) {
		t.Fatalf("slices %d, missing %v, err %v", len(got), missing, err)
	}
}

// TestWorkerZeroLost: worker 0 stops (killed: no leave), and the run is
// over for the others once it has been silent for LostAfter: they read
// only the broadcast partition, and know they read it to its end.
func TestWorkerZeroLost(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "zero-lost", 3)
	ws[0].Close() // as if killed
	ws[0] = nil
	for _, w := range ws[1:] {
		if !waitUntil(t, fast.LostAfter+5*time.Second, func() bool { return errors.Is(w.Over(), ErrRunOver) }) {
			t.Fatalf("worker %d: worker 0 stopped, and the run is not over (%v)", w.run.Index, w.Over())
		}
		if err := w.Over(); !strings.Contains(err.Error(), "worker 0 was lost") {
			t.Errorf("worker %d: %v, want worker 0 lost", w.run.Index, err)
		}
	}
}

// TestOneControlPartitionRefused: a run id whose control topic has one
// partition (an earlier kbench's run, or a topic a broker made by itself)
// is refused, not joined with heartbeats that cannot be written.
func TestOneControlPartitionRefused(t *testing.T) {
	opts := fakeOpts(t)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	control, _ := Topics("old")
	if _, err := kadm.NewClient(cl).CreateTopic(context.Background(), 1, 1, nil, control); err != nil {
		t.Fatal(err)
	}
	_, err = Join(context.Background(), opts, run("old", 1, 0), fast)
	if !userr.Is(err) || !strings.Contains(err.Error(), "exists with 1 partition(s), and this kbench needs 2") {
		t.Fatalf("join: %v; want a user error about the control topic's partitions", err)
	}
}

// TestJoinRefused: bad worker identities are user errors that say what
// is wrong, and a refused worker writes nothing to the run's topics but
// its refusal, when it found the run's workers (so that they can say why
// it did not come).
func TestJoinRefused(t *testing.T) {
	opts := fakeOpts(t)
	ctx := context.Background()
	// An ended run: its id is in use.
	ended := joinAll(t, opts, "ended", 1)
	if err := ended[0].End(ctx); err != nil {
		t.Fatal(err)
	}
	ended[0].Close() // as worker 0 does once it has ended the run
	ended[0] = nil
	// A run of one worker, its heartbeats far apart so that the records
	// counted below are the refused workers'.
	quiet := fast
	quiet.Heartbeat = time.Hour
	other, err := Join(ctx, opts, run("busy", 1, 0), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)

	tests := []struct {
		name    string
		run     Run
		want    string
		records int64 // written to the control topic: the refusal
	}{
		{"index out of range", run("x", 3, 3), "--worker-index 3 is out of range: with --workers 3 give 0 to 2", 0},
		{"negative index", run("x", 3, -1), "--worker-index -1 is out of range", 0},
		{"bad run id", run("a b", 3, 0), `--run-id "a b": use letters, digits`, 0},
		{"run id in use", run("ended", 1, 0), `run id "ended" is in use`, 0},
		{"same index", run("busy", 1, 0), "two workers have index 0 on run \"busy\"", 1},
		{"another plan", Run{ID: "busy", Workers: 1, Index: 0, Plan: "p2", Version: "v1"}, "has worker 0 of another run (plan p1", 1},
		{"another version", Run{ID: "busy", Workers: 1, Index: 0, Plan: "p1", Version: "v2"}, "kbench v1", 1},
		{"another worker count", run("busy", 2, 1), "2 workers", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fast
			o.JoinTimeout = 3 * time.Second
			before := endOf(t, opts, tt.run.ID)
			w, err := Join(ctx, opts, tt.run, o)
			if err == nil {
				w.Close()
				t.Fatal("joined")
			}
			if !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q (user error %v), want one containing %q", err, userr.Is(err), tt.want)
			}
			if after := endOf(t, opts, tt.run.ID); after-before != tt.records {
				t.Errorf("the refused worker wrote %d control records, want %d", after-before, tt.records)
			}
		})
	}
}

// TestJoinTimesOut: a worker that never comes is named, within the bound.
func TestJoinTimesOut(t *testing.T) {
	opts := fakeOpts(t)
	o := fast
	o.JoinTimeout = time.Second
	_, err := Join(context.Background(), opts, run("alone", 3, 0), o)
	if err == nil || !strings.Contains(err.Error(), "worker(s) 1, 2 of run \"alone\" did not join within 1s") {
		t.Fatalf("error %v", err)
	}
}

// endOf is the control topic's end offset (0 when it does not exist).
func endOf(t *testing.T, opts []kgo.Opt, id string) int64 {
	t.Helper()
	control, _ := Topics(id)
	end, err := endOffset(context.Background(), opts, control)
	if err != nil && !errors.Is(err, context.Canceled) {
		return 0
	}
	return end
}

// TestWorkerZeroCallsOffAndEnds: worker 0, failing before a barrier,
// calls the repeat off and the others' Barrier returns at once saying so;
// once worker 0 leaves, the run is over for the others (Over), and a
// slice published just before its worker left is still gathered.
func TestWorkerZeroCallsOffAndEnds(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "calloff", 3)
	ctx := context.Background()
	if err := ws[0].CallOff(ctx, "s1.r1.topics", "prepare topic \"t\": boom"); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, _, err := ws[1].Barrier(ctx, "s1.r1.topics")
	if err == nil || !strings.Contains(err.Error(), "worker 0 called the repeat off: prepare topic \"t\": boom") {
		t.Fatalf("barrier after a call-off: %v", err)
	}
	if d := time.Since(began); d > fast.BarrierTimeout/2 {
		t.Errorf("the call-off took %s to reach worker 1", d)
	}
	if err := ws[2].Publish(ctx, "s1.r1", []byte("slice of 2")); err != nil {
		t.Fatal(err)
	}
	if err := ws[2].Leave(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(t, 10*time.Second, func() bool { return ws[0].leftNow(2) }) {
		t.Fatal("worker 0 never read worker 2's leave")
	}
	got, missing, err := ws[0].Slices(ctx, "s1.r1", []int{2})
	if err != nil || string(got[2]) != "slice of 2" || len(missing) != 0 {
		t.Fatalf("slice %q, missing %v, err %v; want worker 2's, gathered though it left", got[2], missing, err)
	}
	if err := ws[1].Over(); err != nil {
		t.Fatalf("the run is over for worker 1 before worker 0 left: %v", err)
	}
	if err := ws[0].Leave(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(t, 10*time.Second, func() bool { return errors.Is(ws[1].Over(), ErrRunOver) }) {
		t.Fatal("worker 0 left, and the run is not over for worker 1")
	}
}

// waitUntil polls cond every 10 ms until it holds or d passes.
func waitUntil(t *testing.T, d time.Duration, cond func() bool) bool {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// leftNow reports whether worker i's leave has been read.
func (w *Worker) leftNow(i int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.left[i]
	return ok
}

// TestControlReadsDoNotGrow guards issue 50's control traffic: every
// worker read every heartbeat on one control partition, so what each read
// grew with the number of workers. A worker other than 0 now reads worker
// 0's records only; worker 0 reads everyone's. Measured over the same
// window with 3 and with 9 workers, heartbeats every 50 ms and two
// barriers.
func TestControlReadsDoNotGrow(t *testing.T) {
	opts := fakeOpts(t)
	const window = time.Second
	type reads struct{ zero, other int64 } // worker 0's, and the most another worker read
	measure := func(n int) reads {
		ws := joinAll(t, opts, fmt.Sprintf("reads%d", n), n)
		before := make([]int64, n)
		for i, w := range ws {
			before[i] = w.ControlRead()
		}
		began := time.Now()
		for _, barrier := range []string{"s1.r1.topics", "s1.r1.start"} {
			var wg sync.WaitGroup
			for _, w := range ws {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, _, err := w.Barrier(context.Background(), barrier); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
		}
		time.Sleep(window - time.Since(began))
		var r reads
		for i, w := range ws {
			d := w.ControlRead() - before[i]
			if i == 0 {
				r.zero = d
			} else {
				r.other = max(r.other, d)
			}
		}
		t.Logf("%d workers, %s: worker 0 read %d control records, the others at most %d", n, window, r.zero, r.other)
		return r
	}
	few, many := measure(3), measure(9)
	// About 20 of worker 0's heartbeats and 2 starts either way; the
	// bound leaves room for a slow machine's ticks.
	if many.other > few.other*3/2+5 {
		t.Errorf("a worker other than 0 read %d control records with 9 workers and %d with 3: it grows with the workers", many.other, few.other)
	}
	if many.other*3 > many.zero {
		t.Errorf("with 9 workers another worker read %d control records and worker 0 %d: the others read what only worker 0 needs", many.other, many.zero)
	}
}
