package coord

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// write puts raw records on a run's topic from a client that never joined
// it, as another process on the cluster could: on the partition each
// record names (0, the broadcast one, unless set).
func write(t *testing.T, opts []kgo.Opt, topic string, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, r := range recs {
		r.Topic = topic
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func forged(t *testing.T, m message) *kgo.Record {
	t.Helper()
	v, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return &kgo.Record{Value: v}
}

// TestForeignRecordsIgnored guards the hostile trial's forged records: a
// leave and an end of worker 0 written by a client that never joined
// ended workers 1 and 2 at once, and worker 0 then blamed them as lost.
// Records count only from the process that joined with their index; the
// others are counted and named by offset, and a forged result slice is
// not taken in place of the worker's own.
func TestForeignRecordsIgnored(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "forged", 3)
	control, results := Topics("forged")
	write(t, opts, control,
		forged(t, message{Kind: kindLeave, Worker: 0, Instance: "intruder", Reason: "done"}),
		forged(t, message{Kind: kindEnd, Worker: 0, Instance: "intruder"}),
		forged(t, message{Kind: kindStop, Worker: 0, Instance: "intruder", Barrier: "s1.r1", Reason: "forged"}),
		forged(t, message{Kind: kindStart, Worker: 1, Instance: ws[1].instance, Barrier: "s1.r1.start", StartMs: 1}), // worker 1 sets no start
		&kgo.Record{Value: []byte(`{"garbage":true}`)},
		// On worker 0's partition, which only worker 0 reads.
		func() *kgo.Record {
			r := forged(t, message{Kind: kindReady, Worker: 1, Instance: "intruder", Barrier: "s1.r1.start"})
			r.Partition = toZero
			return r
		}(),
	)
	if !waitUntil(t, 10*time.Second, func() bool { n, _ := ws[0].Foreign(); return n == 6 }) {
		n, first := ws[0].Foreign()
		t.Fatalf("worker 0 counted %d foreign records (first: %s), want 6", n, first)
	}
	if !waitUntil(t, 10*time.Second, func() bool { n, _ := ws[1].Foreign(); return n == 5 }) {
		n, first := ws[1].Foreign()
		t.Fatalf("worker 1 counted %d foreign records (first: %s), want 5: those of the broadcast partition", n, first)
	}
	if err := ws[1].Over(); err != nil {
		t.Errorf("a leave and an end forged by another client ended the run for worker 1: %v", err)
	}
	if err := ws[2].Stopped("s1.r1"); err != nil {
		t.Errorf("a forged stop stopped worker 2's repeat: %v", err)
	}
	if g := ws[2].Gone(0); g != "" {
		t.Errorf("worker 2 takes worker 0 as gone (%s)", g)
	}
	if _, first := ws[1].Foreign(); !strings.Contains(first, "offset ") || !strings.Contains(first, "a leave of worker 0 from a process that did not join as worker 0") {
		t.Errorf("the first foreign record in words: %q", first)
	}

	// The results topic: a forged slice of worker 1 before its own.
	write(t, opts, results, &kgo.Record{Key: []byte("s1.r1/1"), Value: []byte(`{"garbage":true}`)})
	for i, w := range ws {
		if err := w.Publish(context.Background(), "s1.r1", []byte("slice "+string(rune('0'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	got, missing, err := ws[0].Slices(context.Background(), "s1.r1", []int{0, 1, 2})
	if err != nil || len(missing) != 0 || string(got[1]) != "slice 1" {
		t.Fatalf("worker 1 slice %q, missing %v, err %v; want its own", got[1], missing, err)
	}
	all, err := ReadResults(context.Background(), opts, "forged")
	if err != nil {
		t.Fatal(err)
	}
	if s := all.First("s1.r1"); string(s[1]) != "slice 1" || len(all.Ignored) != 1 || !strings.Contains(all.Ignored[0], "offset 0:") {
		t.Errorf("collect's read: worker 1's slice %q, ignored %q; want its own, and the forged one named by its offset", s[1], all.Ignored)
	}
}

// TestRefusedWorkerSaysWhy guards the new-user trial: a worker refused
// for another plan left worker 0 waiting its whole join bound to say
// "worker 1 did not join", with no hint of the refusal. The refused
// worker now writes why, and worker 0 says it at once and in its error.
func TestRefusedWorkerSaysWhy(t *testing.T) {
	opts := fakeOpts(t)
	o := fast
	o.JoinTimeout = 3 * time.Second
	var mu sync.Mutex
	var lines []string
	o.Log = func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }
	var err0 error
	done := make(chan struct{})
	go func() {
		defer close(done)
		var w *Worker
		w, err0 = Join(context.Background(), opts, run("refused", 2, 0), o)
		if w != nil {
			w.Close()
		}
	}()
	// Worker 1 of another plan arrives once worker 0 is there.
	if !waitUntil(t, 10*time.Second, func() bool { return endOf(t, opts, "refused") > 0 }) {
		t.Fatal("worker 0 never said hello")
	}
	other := Run{ID: "refused", Workers: 2, Index: 1, Plan: "p2", Version: "v1"}
	if _, err := Join(context.Background(), opts, other, o); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Fatalf("worker 1 of another plan: %v", err)
	}
	<-done
	if err0 == nil || !strings.Contains(err0.Error(), "worker(s) 1 of run \"refused\" did not join within 3s (worker 1 (host ") ||
		!strings.Contains(err0.Error(), "was refused: run \"refused\" has worker 0 of another run") {
		t.Fatalf("worker 0's error: %v; want it to say worker 1 was refused, and why", err0)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 1 || !strings.Contains(lines[0], "worker 1 (host ") || !strings.Contains(lines[0], "was refused") {
		t.Errorf("worker 0's lines while it waited: %q; want one saying worker 1 was refused", lines)
	}
}

// TestJoinAbandoned guards worker 0 interrupted while it waits for the
// others: the run's topics stayed behind, and the workers that had joined
// waited out their own join bound. Worker 0 now leaves, the others stop
// waiting at once, and worker 0 deletes the topics (kept with KeepTopics).
func TestJoinAbandoned(t *testing.T) {
	opts := fakeOpts(t)
	for _, keep := range []bool{false, true} {
		id := "abandoned"
		if keep {
			id = "abandoned-kept"
		}
		o := fast
		o.KeepTopics = keep
		ctx0, interrupt := context.WithCancel(context.Background())
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx := context.Background()
				if i == 0 {
					ctx = ctx0
				}
				var w *Worker
				w, errs[i] = Join(ctx, opts, run(id, 3, i), o) // worker 2 never comes
				if w != nil {
					w.Close()
				}
			}()
		}
		if !waitUntil(t, 10*time.Second, func() bool { return endOf(t, opts, id) >= 2 }) {
			t.Fatal("workers 0 and 1 never said hello")
		}
		began := time.Now()
		interrupt()
		wg.Wait()
		if took := time.Since(began); took > fast.JoinTimeout/2 { // a hang guard: the bound is LostAfter
			t.Errorf("keep %v: the join ended %s after worker 0's interrupt", keep, took)
		}
		if errs[1] == nil || !strings.Contains(errs[1].Error(), "worker 0 left run \""+id+"\" before it began") {
			t.Errorf("keep %v: worker 1's join: %v; want it to say worker 0 left", keep, errs[1])
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		control, _ := Topics(id)
		exists, err := topicExists(context.Background(), cl, control)
		cl.Close()
		if err != nil || exists != keep {
			t.Errorf("keep %v: the run's control topic exists: %v (%v)", keep, exists, err)
		}
	}
}

// TestStopAndVerdict: worker 0's stop of a repeat and its verdict on the
// merge reach the others; worker 0's leave ends the wait for a verdict.
func TestStopAndVerdict(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "stop", 2)
	ctx := context.Background()
	if err := ws[0].Stop(ctx, "s1.r1", "worker 0 was interrupted"); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(t, 10*time.Second, func() bool { return ws[1].Stopped("s1.r1") != nil }) {
		t.Fatal("worker 1 never read worker 0's stop")
	}
	if err := ws[1].Stopped("s1.r2"); err != nil {
		t.Errorf("a stop of repeat 1 stopped repeat 2: %v", err)
	}
	if err := ws[0].Judge(ctx, "s1.r1", Verdict{Status: "failed", Error: "worker 1: lost"}); err != nil {
		t.Fatal(err)
	}
	if v, ok := ws[1].AwaitVerdict(ctx, "s1.r1"); !ok || v.Status != "failed" || v.Error != "worker 1: lost" {
		t.Errorf("verdict %+v, %v", v, ok)
	}
	if err := ws[0].Leave(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, ok := ws[1].AwaitVerdict(ctx, "s1.r2"); ok || time.Since(began) > fast.ResultTimeout/2 {
		t.Errorf("a verdict after worker 0 left: %v after %s", ok, time.Since(began))
	}
}

// TestAnnounce: worker 0's announcement reaches the others with its data,
// the first of a name stands, another worker's announces nothing, and a
// wait for one ends at once when worker 0 leaves.
func TestAnnounce(t *testing.T) {
	opts := fakeOpts(t)
	ws := joinAll(t, opts, "announce", 2)
	ctx := context.Background()
	for _, a := range []struct {
		from int
		data string
	}{{1, `{"rate":1}`}, {0, `{"rate":2}`}, {0, `{"rate":3}`}} {
		if err := ws[a.from].Announce(ctx, "s1.r1.p1", []byte(a.data)); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range ws {
		if got, err := w.Announced(ctx, "s1.r1.p1"); err != nil || string(got) != `{"rate":2}` {
			t.Errorf("worker %d read %s, %v: want worker 0's first", i, got, err)
		}
	}
	if err := ws[0].Leave(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := ws[1].Announced(ctx, "s1.r1.p2"); err == nil || !strings.Contains(err.Error(), "worker 0 ended the run (done)") || time.Since(began) > fast.ResultTimeout/2 {
		t.Errorf("an announcement after worker 0 left: %v after %s", err, time.Since(began))
	}
}
