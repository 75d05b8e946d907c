package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// distPlan is a plan for 3 workers: producers at 3 × 500 records/s for
// seconds, and a consumer group of 3 reading them.
func distPlan(t *testing.T, bootstrap, topic string, seconds int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	text := fmt.Sprintf(`name: distributed
cluster:
  bootstrap: %s
topics:
  - name: %s
    partitions: 6
    replication: 1
workloads:
  - name: producer
    type: produce
    topic: %s
    clients: 3
    message: {size: 100}
    rate: 1500
    duration: %ds
  - name: consumer
    type: consume
    topic: %s
    clients: 3
    group: %s-group
    timeout: 10s
`, bootstrap, topic, topic, seconds, topic, topic)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// worker is one kbench process of a distributed run.
type workerProc struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan error
}

func startWorker(t *testing.T, ctx context.Context, bin string, args ...string) *workerProc {
	t.Helper()
	w := &workerProc{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	w.cmd = exec.CommandContext(ctx, bin, args...)
	w.cmd.Stdout, w.cmd.Stderr = w.stdout, w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	return w
}

// startRun starts the n workers of run runID on plan, worker 0 writing
// the results to out; extra goes to every worker.
func startRun(t *testing.T, ctx context.Context, bin, plan, runID string, n int, out string, extra ...string) []*workerProc {
	t.Helper()
	var ws []*workerProc
	for i := range n {
		args := append([]string{"run", plan, "--workers", strconv.Itoa(n), "--worker-index", strconv.Itoa(i), "--run-id", runID}, extra...)
		if i == 0 {
			args = append(args, "--out", out)
		}
		ws = append(ws, startWorker(t, ctx, bin, args...))
	}
	return ws
}

// runOK runs the n workers of run runID on plan, as startRun does, and
// fails the test unless each exits 0.
func runOK(t *testing.T, ctx context.Context, bin, plan, runID string, n int, out string, extra ...string) {
	t.Helper()
	for i, w := range startRun(t, ctx, bin, plan, runID, n, out, extra...) {
		if code := w.exit(t); code != 0 {
			t.Fatalf("worker %d: exit %d\n%s", i, code, w.stderr)
		}
	}
}

// exit waits for the worker and returns its exit code.
func (w *workerProc) exit(t *testing.T) int {
	t.Helper()
	err := <-w.done
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("worker: %v", err)
	return -1
}

// TestDistributedWorkers runs a plan with 3 worker processes on the real
// broker (plain processes: one host, one clock): the merged counts equal
// the sum of the slices and the topic's offsets, the merged latency equals
// a merge of the slices' histograms, the workers' intervals line up
// within 50 ms, and the same plan run by one process gives the same total
// records and rate within noise. Then a worker killed mid-run is reported
// lost and the others end within the stated bound.
func TestDistributedWorkers(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const seconds = 8
	topic := uniqueTopic(t, "dist")
	plan := distPlan(t, bootstrap, topic, seconds)
	runID := uniqueTopic(t, "run")
	out := filepath.Join(dir, "merged")
	runOK(t, ctx, bin, plan, runID, 3, out, "--keep-control")
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || rep.Workers != 3 {
		t.Fatalf("merged repeat: status %q (%s), %d workers; want ok from 3", rep.Status, rep.Error, rep.Workers)
	}
	if d := doc.Plan.Distributed; d == nil || d.RunID != runID || len(d.Clocks) != 3 || len(d.Lost) != 0 {
		t.Fatalf("distributed: %+v; want run %s with 3 clocks and none lost", d, runID)
	}

	// The slices as the workers published them.
	rctx, rcancel := context.WithTimeout(ctx, time.Minute)
	defer rcancel()
	all, err := coord.ReadResults(rctx, []kgo.Opt{kgo.SeedBrokers(bootstrap)}, runID)
	if err != nil {
		t.Fatal(err)
	}
	slices := all.First("s1.r1")
	if len(slices) != 3 {
		t.Fatalf("%d result slices of repeat 1, want 3", len(slices))
	}
	var sent, read int64
	var lats []*result.Latency
	var series [][]result.Interval
	for k := range 3 {
		var sd struct {
			Repeat result.Repeat `json:"repeat"`
		}
		if err := json.Unmarshal(slices[k], &sd); err != nil {
			t.Fatal(err)
		}
		for _, w := range sd.Repeat.Workloads {
			if w.Producer != nil {
				sent += w.Producer.Records
				lats = append(lats, &w.Producer.Latency)
				series = append(series, w.Producer.Intervals)
			}
			if w.Consumer != nil {
				read += w.Consumer.Records
			}
		}
	}
	merged := map[string]*result.Workload{}
	for i := range rep.Workloads {
		merged[rep.Workloads[i].Name] = &rep.Workloads[i]
	}
	prod, cons := merged["producer"], merged["consumer"]
	offsets := endOffsetSum(t, bootstrap, topic)
	want := int64(1500 * seconds)
	if prod.Producer.Records != sent || sent != offsets || sent != want {
		t.Errorf("producer records: merged %d, slices %d, topic offsets %d; want all %d", prod.Producer.Records, sent, offsets, want)
	}
	if cons.Consumer.Records != read || read != sent {
		t.Errorf("consumer records: merged %d, slices %d; want %d", cons.Consumer.Records, read, sent)
	}
	mergedLat, err := result.MergeLatencies(lats)
	if err != nil {
		t.Fatal(err)
	}
	if got := prod.Producer.Latency; got.Count != mergedLat.Count || got.P50 != mergedLat.P50 || got.P99 != mergedLat.P99 || got.Max != mergedLat.Max || got.Histogram != mergedLat.Histogram {
		t.Errorf("merged latency %+v, a merge of the slices' %+v", got, mergedLat)
	}
	// Every worker's interval falls within 50 ms of one merged interval's
	// start, and no merged interval holds two of one worker's.
	for k, s := range series {
		for _, iv := range s {
			near := false
			for _, m := range prod.Producer.Intervals {
				if d := iv.Start.Sub(m.Start); d >= 0 && d <= result.WorkerAlignment {
					near = true
				}
			}
			if !near {
				t.Errorf("worker %d's interval at %s lines up with no merged interval", k, iv.Start.Format(time.RFC3339Nano))
			}
		}
	}
	if n, most := len(prod.Producer.Intervals), seconds+3; n > most {
		t.Errorf("%d merged intervals for a %d s run, want at most %d: the workers' intervals did not line up", n, seconds, most)
	}

	// kbench collect writes the same results from the cluster.
	collected := filepath.Join(dir, "collected")
	col := startWorker(t, ctx, bin, "collect", runID, "--bootstrap-server", bootstrap, "--out", collected)
	if code := col.exit(t); code != 0 {
		t.Fatalf("collect: exit %d\n%s", code, col.stderr)
	}
	cdoc, err := result.Read(filepath.Join(collected, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	crep := cdoc.Plan.Scenarios[0].Repeats[0]
	for i, w := range crep.Workloads {
		m := rep.Workloads[i]
		if (w.Producer == nil) != (m.Producer == nil) || w.Producer != nil && (w.Producer.Records != m.Producer.Records || w.Producer.Latency.Histogram != m.Producer.Latency.Histogram) {
			t.Errorf("collect's %s differs from worker 0's merge", w.Name)
		}
		if w.Consumer != nil && w.Consumer.Records != m.Consumer.Records {
			t.Errorf("collect's %s read %d records, worker 0's merge %d", w.Name, w.Consumer.Records, m.Consumer.Records)
		}
	}
	if d := cdoc.Plan.Distributed; d == nil || d.Workers != 3 || len(d.Clocks) != 3 {
		t.Errorf("collect's distributed: %+v", d)
	}

	// A worker joining the run that ended is refused: the run id is in use.
	late := startWorker(t, ctx, bin, "run", plan, "--workers", "3", "--worker-index", "1", "--run-id", runID)
	if code := late.exit(t); code != exitUsage || !strings.Contains(late.stderr.String(), "in use") {
		t.Errorf("a worker of an ended run: exit %d, want %d saying the run id is in use:\n%s", code, exitUsage, late.stderr)
	}

	// The same plan run by one process: the same records, the rate within
	// noise.
	single := filepath.Join(dir, "single")
	one := startWorker(t, ctx, bin, "run", distPlan(t, bootstrap, uniqueTopic(t, "single"), seconds), "--out", single)
	if code := one.exit(t); code != 0 {
		t.Fatalf("single process: exit %d\n%s", code, one.stderr)
	}
	sdoc, err := result.Read(filepath.Join(single, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sp *result.Producer
	for _, w := range sdoc.Plan.Scenarios[0].Repeats[0].Workloads {
		if w.Producer != nil {
			sp = w.Producer
		}
	}
	// Both are due the same records: the rate times the duration. Under
	// load a pacer can end a few short (not_sent: 6 of 12,000 once in a
	// full suite run), so what is compared is what each was asked for.
	due := func(p *result.Producer) int64 { return p.Records + p.Failed + p.NotSent }
	if sp == nil || due(sp) != due(prod.Producer) {
		t.Errorf("one process was due %+v records, 3 workers %d", sp, due(prod.Producer))
	} else if r := prod.Producer.RecordsPerSec / sp.RecordsPerSec; r < 0.9 || r > 1.1 {
		t.Errorf("3 workers: %.0f records/s, one process %.0f: more than 10%% apart", prod.Producer.RecordsPerSec, sp.RecordsPerSec)
	}
}

// TestDistributedWorkerLost: a worker killed mid-run is reported lost in
// the merged result, and the others end within the run's time plus the
// bound for losing a worker (10 s without a heartbeat) and the close.
// Every worker's exit code says the run's outcome: worker 1 exited 0 and
// printed "ok" for the repeat that worker 0 failed.
func TestDistributedWorkerLost(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const seconds = 10
	topic := uniqueTopic(t, "lost")
	plan := distPlan(t, bootstrap, topic, seconds)
	// Verified: worker 0 checks the lost worker's records from the ledger
	// pieces it shared before it was killed.
	text, err := os.ReadFile(plan)
	must(t, err)
	must(t, os.WriteFile(plan, []byte(strings.Replace(string(text), "    duration:", "    verify: true\n    duration:", 1)), 0o644))
	runID := uniqueTopic(t, "lost")
	out := filepath.Join(dir, "merged")
	ws := startRun(t, ctx, bin, plan, runID, 3, out)
	// Killed mid-run: the repeat begins (its line), the workers meet and
	// start a few seconds later, and the run lasts 10 s from there.
	if !waitFor(t, 2*time.Minute, func() bool { return strings.Contains(ws[2].stderr.String(), ": running") }) {
		t.Fatalf("worker 2 never began its repeat:\n%s", ws[2].stderr)
	}
	// After its first live line (a few seconds of sending): it has
	// shared ledger pieces since.
	if !waitFor(t, time.Minute, func() bool { return strings.Contains(ws[2].stderr.String(), "producer: ") }) {
		t.Fatalf("worker 2 never reported sending:\n%s", ws[2].stderr)
	}
	killed := time.Now()
	if err := ws[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ws[2].exit(t)
	code0, code1 := ws[0].exit(t), ws[1].exit(t)
	took := time.Since(killed)
	// The rest of the run, 10 s for the lost worker's silence, the drain
	// and the close; doubled for a slow machine.
	if bound := 2 * (seconds + 10 + 15) * time.Second; took > bound {
		t.Errorf("the others ended %s after the kill, want within %s", took, bound)
	}
	if code1 != exitFailure || !strings.Contains(ws[1].stderr.String(), "worker 0's merge of the repeat: worker 2: lost") {
		t.Errorf("worker 1: exit %d, want %d saying worker 0's merge lost worker 2:\n%s", code1, exitFailure, ws[1].stderr)
	}
	if code0 == 0 {
		t.Errorf("worker 0 exit 0 with a worker lost: a repeat without a worker's share is a failure")
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("worker 0 wrote no result: %v\n%s", err, ws[0].stderr)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if d := doc.Plan.Distributed; d == nil || len(d.Lost) != 1 || d.Lost[0] != 2 {
		t.Errorf("distributed: %+v; want worker 2 lost", d)
	}
	if rep.Status != result.StatusFailed || !strings.Contains(rep.Error, "worker 2: lost") {
		t.Errorf("repeat: status %q, error %q; want failed naming worker 2 lost", rep.Status, rep.Error)
	}
	for _, w := range rep.Workloads {
		if w.Producer != nil && (w.Producer.Records == 0 || len(w.Workers) != 2) {
			t.Errorf("producer: %d records, %d worker rows; want the other two workers' records and rows", w.Producer.Records, len(w.Workers))
		}
	}
	if len(rep.Verification) != 1 {
		t.Fatalf("verification %+v, want the producer's", rep.Verification)
	}
	v := rep.Verification[0]
	held := endOffsetSum(t, bootstrap, topic)
	if len(v.Unchecked) != 0 || len(v.Workers) != 3 || v.Lost != 0 || v.Foreign != 0 || v.Read != held {
		t.Errorf("verification %+v: want all 3 workers' records checked, none lost or foreign, all %d the topic holds read", v, held)
		t.Logf("worker 0:\n%s\nworker 2:\n%s", ws[0].stderr, ws[2].stderr)
	}
	for _, w := range v.Workers {
		switch {
		case w.Worker == 2 && (!w.FromPieces || w.Acked == 0 || w.Lost != 0):
			t.Errorf("the killed worker's check %+v: want its shared records checked by worker 0, none lost", w)
		case w.Worker != 2 && (w.FromPieces || w.Acked == 0 || !w.Passed):
			t.Errorf("worker %d's own check %+v: want its acknowledged records, passed", w.Worker, w)
		}
	}
	if v.Acked > held {
		t.Errorf("%d records acknowledged, more than the %d the topic holds", v.Acked, held)
	}
}

// TestDistributedOMB: an OpenMessaging Benchmark workload run by two
// workers. Both name its topic and subscription alike (from the run id),
// so each runs half of its 4 producers and 4 consumers on one topic and
// one group; worker 0 merges them and writes OMB's result too.
func TestDistributedOMB(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	runID := uniqueTopic(t, "omb-run")
	out := filepath.Join(t.TempDir(), "merged")
	runOK(t, ctx, bin, "testdata/omb/1-topic-100-partitions-1kb-4p-4c-200k.yaml", runID, 2, out,
		"--omb-driver", ombDriver, "--set", "cluster.bootstrap="+bootstrap, "--set", "driver.replicationFactor=1",
		"--set", `driver.topicConfig.min\.insync\.replicas=1`, "--set", "warmupDurationMinutes=1s",
		"--set", "testDurationMinutes=4s", "--set", "producerRate=2000")
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || rep.Workers != 2 || len(rep.Workloads) != 2 {
		t.Fatalf("merged repeat: status %q (%s), %d workers, %d workloads; want ok from 2, one producer and one subscription", rep.Status, rep.Error, rep.Workers, len(rep.Workloads))
	}
	var written int64
	for _, w := range rep.Workloads {
		if len(w.Workers) != 2 {
			t.Errorf("workload %s merged from %d workers' slices, want 2 (the workers named it alike)", w.Name, len(w.Workers))
		}
		switch {
		case w.Producer != nil:
			written = w.Producer.Records
			if w.Producer.Clients != 4 || written == 0 {
				t.Errorf("producers: %d clients, %d records; want the workload's 4 clients", w.Producer.Clients, written)
			}
		case w.Consumer != nil:
			if held := endOffsetSum(t, bootstrap, w.Topic.Name); w.Consumer.Clients != 4 || w.Consumer.Records != held {
				t.Errorf("subscription: %d clients read %d records; want 4 reading the %d the topic holds", w.Consumer.Clients, w.Consumer.Records, held)
			}
		}
	}
	var omb struct {
		ProducersPerTopic int       `json:"producersPerTopic"`
		PublishRate       []float64 `json:"publishRate"`
	}
	b, err := os.ReadFile(filepath.Join(out, "omb-result.json"))
	if err == nil {
		err = json.Unmarshal(b, &omb)
	}
	if err != nil || omb.ProducersPerTopic != 4 || len(omb.PublishRate) == 0 {
		t.Errorf("omb-result.json: %+v (%v), want 4 producers per topic and a publish rate", omb, err)
	}
}

// TestDistributedVerify: a verified plan run by three workers. Each
// worker reads the topic back after every worker's producers ended and
// judges the records its own producers acknowledged; worker 0's merge
// adds them up, each worker's part named, and the topic holds exactly
// the records acknowledged.
func TestDistributedVerify(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	topic := uniqueTopic(t, "dist-verify")
	path := filepath.Join(t.TempDir(), "plan.yaml")
	must(t, os.WriteFile(path, []byte(fmt.Sprintf(`name: verified
cluster: {bootstrap: %s}
topics: [{name: %s, partitions: 4, replication: 1}]
workloads:
  - {name: producer, type: produce, topic: %[2]s, clients: 3, message: {size: 100}, rate: 1500, duration: 4s, verify: true}
`, bootstrap, topic)), 0o644))
	out := filepath.Join(t.TempDir(), "merged")
	runOK(t, ctx, bin, path, uniqueTopic(t, "run"), 3, out)
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Verification) != 1 {
		t.Fatalf("merged repeat: status %q (%s), verification %+v", rep.Status, rep.Error, rep.Verification)
	}
	v := rep.Verification[0]
	held := endOffsetSum(t, bootstrap, topic)
	if !v.Passed || v.Lost != 0 || v.Duplicated != 0 || v.Foreign != 0 || v.Acked != held || v.Acked != rep.Workloads[0].Producer.Records {
		t.Errorf("verification %+v: want every one of the %d records the topic holds acknowledged, read once, none foreign", v, held)
	}
	if len(v.Workers) != 3 {
		t.Fatalf("verification by worker %+v, want each of the 3 workers' own check", v.Workers)
	}
	var sum int64
	for _, w := range v.Workers {
		if w.Acked == 0 || !w.Passed {
			t.Errorf("worker %d's check %+v: want its own acknowledged records, passed", w.Worker, w)
		}
		sum += w.Acked
	}
	if sum != v.Acked {
		t.Errorf("the workers' acknowledged records add up to %d, the merge says %d", sum, v.Acked)
	}
}
