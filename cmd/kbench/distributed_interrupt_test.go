package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestDistributedWorkerZeroInterrupted guards the hostile trial's Ctrl-C
// of worker 0: 14 s into a 20 s run worker 0 took 10 s to exit, workers 1
// and 2 produced their whole share, and result.json (interrupted) counted
// 1,141 records while the topic held 5,141. Worker 0 now tells the others
// to stop at once, gathers their slices, and counts every record written.
func TestDistributedWorkerZeroInterrupted(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const seconds = 30
	topic := uniqueTopic(t, "int0")
	plan := distPlan(t, bootstrap, topic, seconds)
	runID := uniqueTopic(t, "int0")
	out := filepath.Join(t.TempDir(), "merged")
	ws := startRun(t, ctx, bin, plan, runID, 3, out)
	// Interrupted mid-run: once worker 0's producer reported records.
	if !waitFor(t, 2*time.Minute, func() bool { return strings.Contains(ws[0].stderr.String(), "producer: ") }) {
		t.Fatalf("worker 0 never reported its producer:\n%s", ws[0].stderr)
	}
	interrupted := time.Now()
	if err := ws[0].cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	codes := make([]int, 3)
	for i := 2; i >= 0; i-- {
		codes[i] = ws[i].exit(t)
		// The others stop within a second of the stop they read, then
		// flush (1 s) and close their consumers (2 s); worker 0 gathers
		// their slices. The regression took worker 0's 10 s bound on
		// gathering, and the others ran on until worker 0 left.
		hangGuard(t, time.Since(interrupted), 8*time.Second, "worker %d ended after worker 0's Ctrl-C:\n%s", i, ws[i].stderr)
	}
	if codes[0] != exitInterrupted {
		t.Errorf("worker 0: exit %d, want %d\n%s", codes[0], exitInterrupted, ws[0].stderr)
	}
	for i := 1; i < 3; i++ {
		if codes[i] == exitOK || !strings.Contains(ws[i].stderr.String(), "worker 0 stopped the run: worker 0 was interrupted") {
			t.Errorf("worker %d: exit %d, want a failure saying worker 0 stopped the run:\n%s", i, codes[i], ws[i].stderr)
		}
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("worker 0 wrote no result: %v\n%s", err, ws[0].stderr)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusInterrupted || rep.Workers != 3 {
		t.Errorf("repeat: %s (%s) from %d workers; want interrupted, with every worker's slice", rep.Status, rep.Error, rep.Workers)
	}
	written := endOffsetSum(t, bootstrap, topic)
	for _, w := range rep.Workloads {
		if w.Producer != nil && (w.Producer.Records != written || len(w.Workers) != 3) {
			t.Errorf("producer: %d records from %d workers, and the topic holds %d: want them all, from 3", w.Producer.Records, len(w.Workers), written)
		}
	}
	if written >= 1500*seconds {
		t.Errorf("the topic holds %d records, the whole run's: the others did not stop", written)
	}
}

// TestDistributedOtherWorkerInterrupted: Ctrl-C on a worker other than 0
// ends it at once, with its share published, and the others run on. (A
// worker waits for worker 0's verdict on each repeat, and must not after
// its own Ctrl-C: worker 0 gives it only at the end of the repeat.)
func TestDistributedOtherWorkerInterrupted(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const seconds = 20
	plan := distPlan(t, bootstrap, uniqueTopic(t, "int2"), seconds)
	out := filepath.Join(t.TempDir(), "merged")
	ws := startRun(t, ctx, bin, plan, uniqueTopic(t, "int2"), 3, out)
	if !waitFor(t, 2*time.Minute, func() bool { return strings.Contains(ws[2].stderr.String(), "producer: ") }) {
		t.Fatalf("worker 2 never reported its producer:\n%s", ws[2].stderr)
	}
	interrupted := time.Now()
	if err := ws[2].cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := ws[2].exit(t); code != exitInterrupted {
		t.Errorf("worker 2: exit %d, want %d\n%s", code, exitInterrupted, ws[2].stderr)
	}
	// Its producers flush (1 s), its consumers close (2 s), its slice is
	// published; waiting for worker 0's verdict would take the rest of
	// the run.
	hangGuard(t, time.Since(interrupted), 8*time.Second, "worker 2 ended after its Ctrl-C:\n%s", ws[2].stderr)
	ws[0].exit(t)
	ws[1].exit(t)
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("worker 0 wrote no result: %v\n%s", err, ws[0].stderr)
	}
	if rep := doc.Plan.Scenarios[0].Repeats[0]; rep.Workers != 3 || rep.Status != result.StatusInterrupted {
		t.Errorf("repeat: %s (%s) from %d workers; want interrupted, with worker 2's share", rep.Status, rep.Error, rep.Workers)
	}
}
