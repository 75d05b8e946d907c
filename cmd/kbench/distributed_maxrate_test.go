package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestDistributedMaxRate: a rate: max search run by 3 worker processes on
// the real broker. Worker 0 decides every probe and judges it on the
// merge of the three shares; every worker exits 0, and result.json holds
// the search as a single process's: a full-speed warm-up, the probes, each
// run by all three workers, and a confirmed answer. Kept short and
// reliable as the single-process test is: the SLO (p99 ≤ 10 s) holds at
// any rate the broker takes, and a ceiling of 3,000 records/s (from a
// start of 1,500) ends the search at its second rate.
func TestDistributedMaxRate(t *testing.T) {
	bootstrap := testkafka.Bootstrap(t)
	dir := t.TempDir()
	bin := kbenchBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	topic := uniqueTopic(t, "dist-max-rate")
	path := filepath.Join(dir, "plan.yaml")
	text := fmt.Sprintf(`name: distributed-max-rate
cluster: {bootstrap: "%s"}
topics: [{name: %s, partitions: 3, replication: 1}]
workloads:
  - name: p
    type: produce
    topic: %s
    clients: 3
    properties: {acks: 1}
    message: {size: 100}
    rate: max
    slo: {p99: 10s, start: 1500/s, ceiling: 3k/s, probes: 1, confirm: 2, warm_cluster: 1s}
    duration: 2s
`, bootstrap, topic, topic)
	must(t, os.WriteFile(path, []byte(text), 0o644))
	out := filepath.Join(dir, "merged")
	began := time.Now()
	runID := uniqueTopic(t, "run")
	ws := startRun(t, ctx, bin, path, runID, 3, out, "--keep-control")
	t.Cleanup(func() { _ = coord.Clean(context.Background(), []kgo.Opt{kgo.SeedBrokers(bootstrap)}, runID) })
	for i, w := range ws {
		if code := w.exit(t); code != 0 {
			t.Fatalf("worker %d: exit %d\n%s", i, code, w.stderr)
		}
	}
	t.Logf("3 workers searched in %s", time.Since(began).Round(time.Second))
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Workloads) != 1 || rep.Workloads[0].MaxRate == nil {
		t.Fatalf("repeat %s (%s), workloads %+v: want an ok search", rep.Status, rep.Error, rep.Workloads)
	}
	w := rep.Workloads[0]
	m := w.MaxRate
	if len(m.Probes) == 0 || !m.Probes[0].Warmup || m.FullSpeed <= 0 {
		t.Fatalf("probes %+v, full speed %.0f: want a full-speed warm-up first", m.Probes, m.FullSpeed)
	}
	for _, p := range m.Probes {
		if !slices.Equal(p.Workers, []int{0, 1, 2}) {
			t.Errorf("probe %+v: want it run by workers 0, 1 and 2", p)
		}
		if !p.Warmup && p.Records < 2000 {
			t.Errorf("probe %+v: want judged on at least 2,000 records (p99)", p)
		}
	}
	// The answer a single process's search of this plan gives: the
	// ceiling, confirmed.
	last := m.Confirmations[len(m.Confirmations)-1]
	if m.Rate != 3000 || m.Found != 3000 || m.Stopped != "ceiling" || !last.Confirmed || last.Rate != m.Rate {
		t.Fatalf("answer %.0f (found %.0f, stopped %q, confirmations %+v): want the ceiling, 3000, confirmed", m.Rate, m.Found, m.Stopped, m.Confirmations)
	}
	// The repeat's figures are a confirming run at the answer, merged.
	if w.Producer == nil || w.Producer.RecordsPerSec < result.KeepUp*m.Rate || len(w.Workers) != 3 {
		t.Errorf("the repeat's producer %+v, %d worker rows: want a run at the answer from all 3 workers", w.Producer, len(w.Workers))
	}
	if !strings.Contains(ws[1].stderr.String(), "worker 0 asks 3000 records/s") {
		t.Errorf("worker 1 never said which probe worker 0 asked:\n%s", ws[1].stderr)
	}

	// kbench collect writes the same search from the cluster.
	collected := filepath.Join(dir, "collected")
	col := startWorker(t, ctx, bin, "collect", runID, "--bootstrap-server", bootstrap, "--out", collected)
	if code := col.exit(t); code != 0 {
		t.Fatalf("collect: exit %d\n%s", code, col.stderr)
	}
	cdoc, err := result.Read(filepath.Join(collected, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	cw := cdoc.Plan.Scenarios[0].Repeats[0].Workloads[0]
	if cw.MaxRate == nil || cw.MaxRate.Rate != m.Rate || len(cw.MaxRate.Probes) != len(m.Probes) || cw.Producer == nil || cw.Producer.Records != w.Producer.Records {
		t.Errorf("collect's search %+v differs from worker 0's %+v", cw.MaxRate, m)
	}
}
