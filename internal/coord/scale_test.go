package coord

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestControlAtScale measures a run's control traffic on a real cluster
// with many in-process workers, each with its own clients as a worker
// process has: how long joining takes, the bytes and records written to
// the control topic per minute, what worker 0 and the others read, and
// the memory a worker's coordination holds. It runs only when
// KBENCH_SCALE_BOOTSTRAP names a cluster (bench/control-scale.sh starts
// one), for the worker counts in KBENCH_SCALE_WORKERS (default 10,100),
// over KBENCH_SCALE_SECONDS (default 30) with a barrier every 10 s, the
// default heartbeat of a second.
func TestControlAtScale(t *testing.T) {
	bootstrap := os.Getenv("KBENCH_SCALE_BOOTSTRAP")
	if bootstrap == "" {
		t.Skip("KBENCH_SCALE_BOOTSTRAP is not set: bench/control-scale.sh runs this against a local cluster")
	}
	counts := []int{10, 100}
	if s := os.Getenv("KBENCH_SCALE_WORKERS"); s != "" {
		counts = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 {
				t.Fatalf("KBENCH_SCALE_WORKERS: %q is not a worker count of 2 or more", f)
			}
			counts = append(counts, n)
		}
	}
	window := 30 * time.Second
	if s := os.Getenv("KBENCH_SCALE_SECONDS"); s != "" {
		sec, err := strconv.Atoi(s)
		if err != nil || sec < 10 {
			t.Fatalf("KBENCH_SCALE_SECONDS: %q is not 10 or more", s)
		}
		window = time.Duration(sec) * time.Second
	}
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(bootstrap, ",")...)}
	t.Logf("| workers | join, slowest | control written per minute (all) | records per minute (all) | worker 0 read per minute | another worker read per minute, at most | coordination memory per worker |")
	t.Logf("| --- | --- | --- | --- | --- | --- | --- |")
	for _, n := range counts {
		t.Logf("%s", controlAtScale(t, opts, n, window))
	}
}

func controlAtScale(t *testing.T, opts []kgo.Opt, n int, window time.Duration) string {
	t.Helper()
	id := fmt.Sprintf("scale-%d-%d", n, time.Now().UnixNano())
	o := Options{JoinTimeout: 5 * time.Minute, BarrierTimeout: 5 * time.Minute, ResultTimeout: 5 * time.Minute, LostAfter: 30 * time.Second}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heap()
	ws := make([]*Worker, n)
	errs := make([]error, n)
	took := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			ws[i], errs[i] = Join(context.Background(), opts, run(id, n, i), o)
			took[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	defer func() {
		for _, w := range ws {
			if w != nil {
				w.Close()
			}
		}
		deleteRunTopics(t, opts, id)
	}()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%d workers: worker %d: %v", n, i, err)
		}
	}
	perWorker := float64(heap()-before) / float64(n)
	written0, read0 := make([]int64, n), make([]int64, n)
	for i, w := range ws {
		written0[i], read0[i] = w.ControlBytes(), w.ControlRead()
	}
	recs0 := controlRecords(t, opts, id)
	began := time.Now()
	for b := 0; time.Since(began) < window; b++ {
		name := fmt.Sprintf("s1.r%d.start", b)
		var bwg sync.WaitGroup
		for i, w := range ws {
			bwg.Add(1)
			go func() {
				defer bwg.Done()
				if _, members, err := w.Barrier(context.Background(), name); err != nil || len(members) != n {
					t.Errorf("worker %d at %s: %d members, %v", i, name, len(members), err)
				}
			}()
		}
		bwg.Wait()
		time.Sleep(min(10*time.Second, window-time.Since(began)))
	}
	minutes := time.Since(began).Minutes()
	var written, other int64
	for i, w := range ws {
		written += w.ControlBytes() - written0[i]
		if i > 0 {
			other = max(other, w.ControlRead()-read0[i])
		}
	}
	zero := ws[0].ControlRead() - read0[0]
	recs := controlRecords(t, opts, id) - recs0
	if float64(other) > 3*float64(zero)/float64(n)+200*minutes {
		t.Errorf("%d workers: another worker read %d control records, worker 0 %d: the others read what only worker 0 needs", n, other, zero)
	}
	return fmt.Sprintf("| %d | %.1f s | %.0f KB | %.0f | %.0f | %.0f | %.0f KB |", n, slices.Max(took).Seconds(),
		float64(written)/minutes/1000, float64(recs)/minutes, float64(zero)/minutes, float64(other)/minutes, perWorker/1000)
}

// controlRecords is how many records the run's control topic holds.
func controlRecords(t *testing.T, opts []kgo.Opt, id string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	control, _ := Topics(id)
	ends, err := kadm.NewClient(cl).ListEndOffsets(context.Background(), control)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

func deleteRunTopics(t *testing.T, opts []kgo.Opt, id string) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return
	}
	defer cl.Close()
	control, results := Topics(id)
	_, _ = kadm.NewClient(cl).DeleteTopics(context.Background(), control, results)
}
