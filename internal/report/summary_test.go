package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func latency(t testing.TB, values ...int64) result.Latency {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	l, err := result.LatencyOf(h)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// testDoc is a plan run of two scenarios: one steady, one whose repeats
// disagree, with one failed repeat and an end-to-end workload.
func testDoc(t testing.TB) *result.Document {
	t.Helper()
	rep := func(i int, status string, rps float64, lat result.Latency, e2e *result.Latency, bound bool) result.Repeat {
		w := result.Workload{Name: "p", Type: "end-to-end",
			Producer:  &result.Producer{Records: 100000, RecordsPerSec: rps, MiBPerSec: rps * 100 / (1 << 20), Latency: lat},
			EndToEnd:  e2e,
			Generator: &result.Generator{Bound: bound, Reasons: []string{"kbench used 95% of the machine's 2 CPUs"}}}
		return result.Repeat{Index: i, Status: status, StartedAt: time.Unix(0, 0).UTC(), EndedAt: time.Unix(10, 0).UTC(), Workloads: []result.Workload{w}}
	}
	e2e := latency(t, 3000, 4000, 9000)
	scs := []result.Scenario{
		{Index: 1, Name: "record_size=10", Params: []result.Param{{Name: "record_size", Value: "10"}}, Repeats: []result.Repeat{
			rep(1, result.StatusOK, 50000, latency(t, 1000, 2000, 3000), &e2e, false),
			rep(2, result.StatusOK, 52000, latency(t, 1500, 2500, 3500), &e2e, false),
		}},
		{Index: 2, Name: "record_size=1000", Params: []result.Param{{Name: "record_size", Value: "1000"}}, Repeats: []result.Repeat{
			rep(1, result.StatusOK, 10000, latency(t, 10000, 20000), &e2e, true),
			rep(2, result.StatusOK, 20000, latency(t, 12000, 22000), &e2e, false),
			rep(3, result.StatusFailed, 0, latency(t), nil, false),
		}},
	}
	for i := range scs {
		if err := result.AggregateScenario(&scs[i]); err != nil {
			t.Fatal(err)
		}
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "record-size-sweep", Description: "A test sweep", Parameters: []string{"record_size"}, Repeat: 3,
		Environment: &result.Environment{Cluster: "local", KafkaVersion: "4.3.1", BrokerVersions: []string{"v4.3"}}, Scenarios: scs}
	return doc
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestWriteSummaryMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummaryMarkdown(&buf, testDoc(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.md.golden", buf.Bytes())
}

func TestWriteSummaryCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, testDoc(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.csv.golden", buf.Bytes())
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, testDoc(t)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.md", "summary.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files in the folder, want 3 (no temporary files left)", len(entries))
	}
	if err := WriteSummaryCSV(&bytes.Buffer{}, &result.Document{}); err == nil {
		t.Error("a document without a plan run must be refused")
	}
}

// TestWriteAllWritesNothingOnError: regression: a histogram that did not
// decode failed report.html after summary.md and summary.csv had been
// rewritten, leaving a folder whose reports disagreed.
func TestWriteAllWritesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	doc := testDoc(t)
	doc.Plan.Scenarios[0].Aggregate.Latency = &result.Latency{Count: 1, Histogram: "AAAA"}
	if err := WriteAll(dir, doc); err == nil {
		t.Fatal("a damaged histogram was reported")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d file(s) written from a result that could not be reported, want none", len(entries))
	}
}

// probeDoc is a plan run whose scenario has a loaded producer beside a
// light end-to-end probe, two repeats.
func probeDoc(t testing.TB) *result.Document {
	t.Helper()
	rep := func(i int) result.Repeat {
		return result.Repeat{Index: i, Status: result.StatusOK, Workloads: []result.Workload{
			{Name: "writer", Type: "produce", Producer: &result.Producer{Records: 300000, RecordsPerSec: 3000, MiBPerSec: 1.5,
				Latency: latency(t, 60_000_000, 66_000_000, 70_000_000)}},
			{Name: "probe", Type: "end-to-end", Producer: &result.Producer{Records: 5000, RecordsPerSec: 50, MiBPerSec: 0.01,
				Latency: latency(t, 4000, 5000, 6000)}, EndToEnd: ptrLat(latency(t, 5000, 5300, 5320))},
		}}
	}
	sc := result.Scenario{Index: 1, Name: "partitions=10", Params: []result.Param{{Name: "partitions", Value: "10"}}, Repeats: []result.Repeat{rep(1), rep(2)}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "probe", Parameters: []string{"partitions"}, Repeat: 2, Scenarios: []result.Scenario{sc}}
	return doc
}

func ptrLat(l result.Latency) *result.Latency { return &l }

// TestSummaryKeepsWorkloadsApart: regression: an end-to-end probe's records
// were added to the producer's records/s and its latencies merged into
// the publish percentiles, so a row showed the producer's p99 of 66 s
// beside the probe's end-to-end p99 of 5 ms as if one workload had both.
// Each workload has its own row; the total row names what it adds up.
func TestSummaryKeepsWorkloadsApart(t *testing.T) {
	doc := probeDoc(t)
	var md, csv bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryCSV(&csv, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| partitions | workload | repeats | records/s | MB/s | p50 ms | p95 ms | p99 ms | p99.9 ms | e2e p99 ms |",
		"| 10 | writer | 2 | 3000 ± 0 | 1.50 ± 0.00 | 66027.5 ± 0.0 | 70000.0 ± 0.0 | 70000.0 ± 0.0 | 70000.0 ± 0.0 |  |",
		"| 10 | probe | 2 | 50 ± 0 | 0.01 ± 0.00 | 5.0 ± 0.0 | 6.0 ± 0.0 | 6.0 ± 0.0 | 6.0 ± 0.0 | 5.3 ± 0.0 |",
		"| 10 | total: writer + probe | 2 | 3050 ± 0 | 1.51 ± 0.00 |  |  |  |  |  |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks\n%s\nin\n%s", want, md.String())
		}
	}
	for _, want := range []string{
		"scenario,partitions,workload,repeats,records,records_per_sec,",
		"partitions=10,10,probe,2,5000,50.0,0.0,0.010,5.003,6.000,6.000,6.000,6.000,5.320,,0,0,false,false",
		"partitions=10,10,total: writer + probe,2,305000,3050.0,0.0,1.510,,,,,,,,0,0,false,false",
	} {
		if !strings.Contains(csv.String(), want) {
			t.Errorf("summary.csv lacks\n%s\nin\n%s", want, csv.String())
		}
	}
}

// TestSummaryInterruptedRow: regression: a scenario whose only repeat was
// interrupted (Ctrl-C) had an empty row, though result.json held what it
// had measured. The row shows it, marked interrupted.
func TestSummaryInterruptedRow(t *testing.T) {
	sc := result.Scenario{Index: 1, Name: "record_size=100", Params: []result.Param{{Name: "record_size", Value: "100"}}, Repeats: []result.Repeat{{
		Index: 1, Status: result.StatusInterrupted, Error: "interrupted", Workloads: []result.Workload{{Name: "p", Type: "produce",
			Producer: &result.Producer{Records: 4200, RecordsPerSec: 2100, MiBPerSec: 0.2, Latency: latency(t, 3000, 4000)}}},
	}}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Status = result.StatusInterrupted
	doc.Plan = &result.PlanRun{Name: "sweep", Parameters: []string{"record_size"}, Repeat: 1, Scenarios: []result.Scenario{sc}}
	var md, csv bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryCSV(&csv, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 100 | 1 interrupted | 2100 | 0.20 | 3.0 | 4.0 | 4.0 | 4.0 |", "interrupted: no repeat of the scenario ended ok"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md.String())
		}
	}
	if want := "record_size=100,100,1,4200,2100.0,0.0,0.200,3.001,4.000,4.000,4.000,4.000,,,0,0,false,true"; !strings.Contains(csv.String(), want) {
		t.Errorf("summary.csv lacks %q:\n%s", want, csv.String())
	}
}

// TestWriteAllModesAndPlan: regressions: the reports were written 0600
// beside a plan.yaml of 0644; and a result.json reported away from its
// folder lost the plan as run, which result.json now carries.
func TestWriteAllModesAndPlan(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := testDoc(t)
	doc.Plan.PlanYAML = "name: record-size-sweep # as run\n"
	if err := WriteAll(dir, doc); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(filepath.Join(dir, "plan.yaml"))
	for _, f := range []string{"summary.md", "summary.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode() != want.Mode() {
			t.Errorf("%s: mode %v (%v), want plan.yaml's %v", f, fi.Mode(), err, want.Mode())
		}
	}
	alone := t.TempDir() // a result.json copied elsewhere: no plan.yaml
	if err := WriteAll(alone, doc); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(alone, "report.html")); !strings.Contains(string(b), "name: record-size-sweep # as run") {
		t.Error("report.html of a result.json alone lacks the plan as run")
	}
}

// TestSummarySaysProxiesWereUsed: a run through the network proxies says
// so, and what they cost, in summary.md and the HTML report.
func TestSummarySaysProxiesWereUsed(t *testing.T) {
	doc := testDoc(t)
	var plain bytes.Buffer
	if err := WriteSummaryMarkdown(&plain, doc); err != nil {
		t.Fatal(err)
	}
	doc.Plan.Environment.NetworkProxies = true
	var md bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "network proxies") || !strings.Contains(md.String(), ProxiesNote) {
		t.Errorf("summary.md says proxies were used only when they were:\n%s", md.String())
	}
}
