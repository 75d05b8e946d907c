package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestDistributedRepeatAfterLostWorker guards the hostile trial's repeat
// after a killed worker: its two surviving consumers read nothing (80,000
// written) and the repeat failed only with "worker 1: lost". The killed
// worker's consumer stayed a member of the group for its session timeout,
// the readers' idle timeout ran out meanwhile, and the producers started
// anyway. The next repeat's readers are now all assigned before any
// producer starts, and they read everything written; the repeat fails
// for the lost worker's share alone, and says so.
func TestDistributedRepeatAfterLostWorker(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const seconds = 10
	topic := uniqueTopic(t, "again")
	plan := distPlan(t, bootstrap, topic, seconds)
	text, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plan, append(text, "repeat: 2\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	runID := uniqueTopic(t, "again")
	out := filepath.Join(t.TempDir(), "merged")
	ws := startRun(t, ctx, bin, plan, runID, 3, out)
	if !waitFor(t, 2*time.Minute, func() bool { return strings.Contains(ws[2].stderr.String(), "producer: ") }) {
		t.Fatalf("worker 2 never reported its producer:\n%s", ws[2].stderr)
	}
	if err := ws[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ws[2].exit(t)
	code0, code1 := ws[0].exit(t), ws[1].exit(t)
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("worker 0 wrote no result: %v\n%s", err, ws[0].stderr)
	}
	if code0 != exitFailure || code1 != exitFailure {
		t.Errorf("exit %d and %d, want %d from both: a worker was lost", code0, code1, exitFailure)
	}
	if !strings.Contains(ws[1].stderr.String(), "worker 2 was lost: its consumers stay members of their groups until their session times out") {
		t.Errorf("worker 1 does not say why its readers wait:\n%s", ws[1].stderr)
	}
	reps := doc.Plan.Scenarios[0].Repeats
	if len(reps) != 2 {
		t.Fatalf("%d repeats, want 2", len(reps))
	}
	second := reps[1]
	var wrote, read int64
	for _, w := range second.Workloads {
		if w.Producer != nil {
			wrote = w.Producer.Records
		}
		if w.Consumer != nil {
			read = w.Consumer.Records
		}
	}
	if wrote == 0 || read != wrote {
		t.Errorf("repeat 2: wrote %d, read %d; want every record read\nworker 0:\n%s\nworker 1:\n%s", wrote, read, ws[0].stderr, ws[1].stderr)
	}
	if second.Error != "worker 2: lost before this repeat began; its share is missing from this repeat" {
		t.Errorf("repeat 2: %s (%s); want it failed for worker 2's share alone", second.Status, second.Error)
	}
}
