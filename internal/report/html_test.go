package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// sweepDoc is a plan run of scenarios × repeats, each repeat a producer
// (with a warm-up) and a consumer (with lag) measured over seconds
// one-second intervals: what a real sweep's result.json holds.
func sweepDoc(t testing.TB, scenarios, repeats, seconds int) *result.Document {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	run := &result.PlanRun{Name: "partition-study", Description: "p99 against partitions", Parameters: []string{"partitions"}, Repeat: repeats,
		Environment: &result.Environment{Cluster: "local", KafkaVersion: "4.3.1", BrokerVersions: []string{"4.3.1", "4.3.1", "4.3.1"}, CPUs: 2, GoMaxProcs: 2, OS: "linux", Arch: "amd64"}}
	for s := range scenarios {
		parts := []int{1, 10, 100, 500, 1000, 2000, 3000}[s%7]
		sc := result.Scenario{Index: s + 1, Name: fmt.Sprintf("partitions=%d", parts), Params: []result.Param{{Name: "partitions", Value: fmt.Sprint(parts)}}}
		for r := range repeats {
			start := t0.Add(time.Duration(s*repeats+r) * time.Duration(seconds+5) * time.Second)
			hist, e2e := measure.NewHistogram(), measure.NewHistogram()
			prod := &result.Producer{Clients: 1, LatencyFrom: "intended"}
			cons := &result.Consumer{Clients: 1}
			for i := range seconds {
				n := int64(9000 + rng.IntN(2000))
				p50 := 2 + float64(parts)/500 + rng.Float64()
				for range 200 {
					hist.Record(int64((p50 + rng.ExpFloat64()*3) * 1000))
					e2e.Record(int64((p50 + 1 + rng.ExpFloat64()*4) * 1000))
				}
				iv := result.Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1, ElapsedSeconds: float64(i + 1),
					Records: n, Bytes: n * 1024, RecordsPerSec: float64(n),
					AvgLatencyMs: p50 * 1.3, MaxLatencyMs: p50 * 8, P50LatencyMs: p50, P99LatencyMs: p50 * 4, P999LatencyMs: p50 * 6, Steady: i >= 5}
				prod.Intervals = append(prod.Intervals, iv)
				prod.Records += n
				prod.Bytes += n * 1024
				civ := iv
				civ.P50LatencyMs, civ.P99LatencyMs, civ.P999LatencyMs, civ.Steady = 0, 0, 0, false
				cons.Intervals = append(cons.Intervals, civ)
				cons.Records += n
				cons.Lag = append(cons.Lag, result.LagPoint{ElapsedSeconds: float64(i) + 0.5, Records: int64(rng.IntN(5000))})
			}
			prod.DurationSeconds = float64(seconds)
			prod.RecordsPerSec = float64(prod.Records) / float64(seconds)
			prod.MiBPerSec = float64(prod.Bytes) / float64(seconds) / (1 << 20)
			cons.DurationSeconds, cons.RecordsPerSec = float64(seconds), float64(cons.Records)/float64(seconds)
			var err error
			if prod.Latency, err = result.LatencyOf(hist); err != nil {
				t.Fatal(err)
			}
			el, err := result.LatencyOf(e2e)
			if err != nil {
				t.Fatal(err)
			}
			sc.Repeats = append(sc.Repeats, result.Repeat{Index: r + 1, StartedAt: start, EndedAt: start.Add(time.Duration(seconds) * time.Second), Status: result.StatusOK,
				Workloads: []result.Workload{
					{Name: "writers", Type: "produce", Topic: &result.Topic{Name: "t", Partitions: parts, ReplicationFactor: 3}, Producer: prod,
						Config: map[string]string{"acks": "all", "linger.ms": "5", "sasl.jaas.config": "[redacted]"}},
					{Name: "readers", Type: "consume", Topic: &result.Topic{Name: "t", Partitions: parts, ReplicationFactor: 3}, Consumer: cons, EndToEnd: &el},
				}})
		}
		if err := result.AggregateScenario(&sc); err != nil {
			t.Fatal(err)
		}
		run.Scenarios = append(run.Scenarios, sc)
	}
	doc := result.New(result.KindPlan, "test", t0, nil)
	doc.EndedAt = t0.Add(time.Hour)
	doc.Status = result.StatusOK
	doc.Plan = run
	return doc
}

func TestReportHTMLSizeOfASweep(t *testing.T) {
	doc := sweepDoc(t, 5, 5, 60)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, doc, HTMLInput{PlanYAML: "name: partition-study\n"}); err != nil {
		t.Fatal(err)
	}
	if n := buf.Len(); n > 2<<20 {
		t.Fatalf("report.html of a 5-scenario × 5-repeat sweep is %d bytes, want under 2 MB", n)
	}
	page := buf.String()
	for _, want := range []string{"partition-study", "uPlot", "KBENCH_DATA", "partitions=1000", "4.3.1", "linux/amd64", "sasl.jaas.config", "[redacted]"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Self-contained: nothing loaded from elsewhere.
	for _, bad := range []string{"<script src", "<link ", "@import", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html refers to an outside resource: %q", bad)
		}
	}
	t.Logf("report.html of a 5×5 sweep, 60 s each: %d KB", buf.Len()>>10)
}

// TestReportHTMLCompressesLongSeries: a day-long series is carried gzipped,
// so the page stays small enough to share.
func TestReportHTMLCompressesLongSeries(t *testing.T) {
	doc := sweepDoc(t, 1, 1, 20000)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, doc, HTMLInput{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "window.KBENCH_COMPRESSED =  true ") {
		t.Fatal("long series were not compressed")
	}
	if n := buf.Len(); n > 2<<20 {
		t.Fatalf("report.html with 20000 intervals is %d bytes", n)
	}
}

func TestChartDataFromResult(t *testing.T) {
	doc := sweepDoc(t, 3, 2, 10)
	cd, err := buildCharts(doc.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(cd.Scenarios) != 3 || len(cd.Scenarios[0].Repeats) != 2 {
		t.Fatalf("scenarios/repeats: %d/%d", len(cd.Scenarios), len(cd.Scenarios[0].Repeats))
	}
	w := cd.Scenarios[0].Repeats[0].Workloads[0]
	if len(w.T) != 10 || w.T[0] != 1 || w.T[9] != 10 {
		t.Errorf("time axis %v: want interval ends 1..10 s on the repeat's clock", w.T)
	}
	if w.SteadyAt == nil || *w.SteadyAt != 5 {
		t.Errorf("steady state begins at %v, want 5 s (5 warm-up intervals)", w.SteadyAt)
	}
	if w.P99[0] == nil || len(w.Avg) != 0 {
		t.Errorf("a producer's latency series are percentiles")
	}
	c := cd.Scenarios[0].Repeats[0].Workloads[1]
	if len(c.Avg) != 10 || len(c.P50) != 0 || len(c.Lag) != 10 || c.LagT[0] != 0.5 {
		t.Errorf("consumer series: avg %d, p50 %d, lag %d (first at %v)", len(c.Avg), len(c.P50), len(c.Lag), c.LagT)
	}
	// Distribution curves: one per scenario, ending on the exact maximum.
	if len(cd.Publish) != 3 || len(cd.EndToEnd) != 3 {
		t.Fatalf("curves: publish %d, end-to-end %d", len(cd.Publish), len(cd.EndToEnd))
	}
	pc := cd.Publish[0]
	if last := pc.Y[len(pc.Y)-1]; last != float64(doc.Plan.Scenarios[0].Aggregate.Latency.Max)/1000 {
		t.Errorf("curve ends at %v ms, want the exact max", last)
	}
	for i := 1; i < len(pc.Y); i++ {
		if pc.Y[i] < pc.Y[i-1] {
			t.Fatalf("curve decreases at %v", pc.X[i])
		}
	}
	// Each metric against the swept parameter, with the spread.
	if cd.Matrix == nil || cd.Matrix.Parameter != "partitions" || len(cd.Matrix.Labels) != 3 || cd.Matrix.Labels[1] != "10" {
		t.Fatalf("matrix %+v", cd.Matrix)
	}
	for _, m := range cd.Matrix.Metrics {
		if len(m.Series) != 1 {
			t.Fatalf("%s: %d series, want 1 with one swept parameter", m.Name, len(m.Series))
		}
		s := m.Series[0]
		for i := range s.Mean {
			if *s.Min[i] > *s.Mean[i] || *s.Mean[i] > *s.Max[i] {
				t.Errorf("%s at %s: min %v mean %v max %v", m.Name, cd.Matrix.Labels[i], *s.Min[i], *s.Mean[i], *s.Max[i])
			}
		}
	}
}

// TestMatrixSeriesPerOtherParameter: with two swept parameters, x is the
// first and each value of the second is a line (the partition study: p99
// against partitions, one line per message kind).
func TestMatrixSeriesPerOtherParameter(t *testing.T) {
	doc := sweepDoc(t, 4, 1, 3)
	run := doc.Plan
	run.Parameters = []string{"partitions", "message"}
	for i := range run.Scenarios {
		sc := &run.Scenarios[i]
		parts := []string{"1", "1", "10", "10"}[i]
		msg := []string{"size=4000", "payload_file=orders.json"}[i%2]
		sc.Params = []result.Param{{Name: "partitions", Value: parts}, {Name: "message", Value: msg}}
	}
	m := matrix(run)
	if m.Parameter != "partitions" || strings.Join(m.Labels, ",") != "1,10" {
		t.Fatalf("x: %s %v, want partitions 1,10", m.Parameter, m.Labels)
	}
	rate := m.Metrics[0]
	if len(rate.Series) != 2 || rate.Series[0].Name != "message=size=4000" || rate.Series[1].Name != "message=payload_file=orders.json" {
		t.Fatalf("series %+v", rate.Series)
	}
	for _, s := range rate.Series {
		for x, v := range s.Mean {
			if v == nil {
				t.Errorf("series %s has no point at %s", s.Name, m.Labels[x])
			}
		}
	}
	if got, want := *rate.Series[1].Mean[1], run.Scenarios[3].Aggregate.RecordsPerSec.Mean; got != round3(want) {
		t.Errorf("partitions=10 payload_file: %v, want scenario 4's %v", got, want)
	}
}

func TestWriteAllWritesTheReport(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte("name: partition-study # the plan as run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, sweepDoc(t, 2, 1, 5)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.md", "summary.csv", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(b), "the plan as run") {
		t.Error("report.html does not show plan.yaml")
	}
}
