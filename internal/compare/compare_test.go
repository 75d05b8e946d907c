package compare

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// sc builds a plan scenario whose repeats measured rps records/s and p99 ms
// (the other latency figures equal p99), aggregated as kbench run does.
func sc(name string, rps, p99 []float64, errors int64) result.Scenario {
	lat := result.Describe(p99)
	return result.Scenario{Name: name, Aggregate: &result.Aggregate{
		Repeats: len(rps), RecordsPerSec: result.Describe(rps), MiBPerSec: result.Describe(rps),
		P50Ms: lat, P95Ms: lat, P99Ms: lat, P999Ms: lat, MaxMs: lat, Errors: errors,
	}}
}

// writeDoc writes doc as result.json into a folder of its own and returns
// the folder.
func writeDoc(t *testing.T, doc *result.Document) string {
	t.Helper()
	dir := t.TempDir()
	doc.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if doc.Status == "" {
		doc.Status = result.StatusOK
	}
	if err := result.Write(filepath.Join(dir, "result.json"), doc); err != nil {
		t.Fatal(err)
	}
	return dir
}

func planDir(t *testing.T, scenarios ...result.Scenario) string {
	t.Helper()
	return writeDoc(t, &result.Document{Kind: result.KindPlan, Plan: &result.PlanRun{Name: "study", Repeat: 1, Scenarios: scenarios}})
}

// load compares the documents in the folders (or files) a and b.
func load(t *testing.T, a, b string) *Report {
	t.Helper()
	sa, err := Load(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return Compare(sa, sb)
}

// find returns the row of a scenario's metric, formatted.
func find(t *testing.T, r *Report, scenario, metric string) []string {
	t.Helper()
	for _, row := range r.Rows {
		if row.Scenario == scenario && row.Metric.Name == metric {
			return row.cells()
		}
	}
	t.Fatalf("no row for %s %s in %+v", scenario, metric, r.Rows)
	return nil
}

func TestCompare(t *testing.T) {
	t.Parallel()
	one := NoteOneRepeat
	tests := []struct {
		name   string
		a, b   result.Scenario
		metric string
		want   []string // A, B, change, verdict
	}{
		{"rate up, 1 repeat", sc("s", []float64{1000}, []float64{10}, 0), sc("s", []float64{1100}, []float64{10}, 0),
			"records_per_sec", []string{"1000.0", "1100.0", "+10.0%", "better (" + one + ")"}},
		{"p99 up, 1 repeat", sc("s", []float64{1000}, []float64{10}, 0), sc("s", []float64{1000}, []float64{12}, 0),
			"p99_ms", []string{"10.000", "12.000", "+20.0%", "worse (" + one + ")"}},
		{"p99 down", sc("s", []float64{1000}, []float64{10}, 0), sc("s", []float64{1000}, []float64{8}, 0),
			"p99_ms", []string{"10.000", "8.000", "-20.0%", "better (" + one + ")"}},
		{"rate up, intervals apart", sc("s", []float64{990, 1000, 1010}, []float64{10}, 0), sc("s", []float64{1090, 1100, 1110}, []float64{10}, 0),
			"records_per_sec", []string{"1000.0 (−2.5/+2.5%)", "1100.0 (−2.2/+2.3%)", "+10.0%", "better"}},
		{"rate up, intervals overlap", sc("s", []float64{900, 1000, 1100}, []float64{10}, 0), sc("s", []float64{950, 1050, 1150}, []float64{10}, 0),
			"records_per_sec", []string{"1000.0 (−22.0/+28.2%)", "1050.0 (−21.1/+26.7%)", "+5.0%", "within noise"}},
		{"rate down, 2 repeats against 1", sc("s", []float64{990, 1010}, []float64{10}, 0), sc("s", []float64{900}, []float64{10}, 0),
			"records_per_sec", []string{"1000.0", "900.0", "-10.0%", "worse (" + one + ")"}},
		// Regression: two repeats gave a 95% interval of ±12.7 standard
		// errors (Student's t), wide enough to call any change noise.
		{"rate up, 2 repeats each", sc("s", []float64{990, 1010}, []float64{10}, 0), sc("s", []float64{1090, 1110}, []float64{10}, 0),
			"records_per_sec", []string{"1000.0", "1100.0", "+10.0%", "better (" + NoteTwoRepeats + ")"}},
		{"equal", sc("s", []float64{1000}, []float64{10}, 0), sc("s", []float64{1000}, []float64{10}, 0),
			"records_per_sec", []string{"1000.0", "1000.0", "0.0%", "same"}},
		{"errors from 0", sc("s", []float64{1000}, []float64{10}, 0), sc("s", []float64{1000}, []float64{10}, 3),
			"errors", []string{"0", "3", "n/a", "worse"}},
		{"errors down", sc("s", []float64{1000, 1000}, []float64{10}, 4), sc("s", []float64{1000, 1000}, []float64{10}, 2),
			"errors", []string{"4", "2", "-50.0%", "better"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := load(t, planDir(t, tt.a), planDir(t, tt.b))
			if got := find(t, r, "s", tt.metric)[2:]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: got %q, want %q", tt.metric, got, tt.want)
			}
		})
	}
}

func TestCompareScenariosInOneSide(t *testing.T) {
	t.Parallel()
	x := func(name string) result.Scenario { return sc(name, []float64{1000}, []float64{10}, 0) }
	// No repeat ended ok: no aggregate, one error (the failed repeat).
	failed := result.Scenario{Name: "w", Repeats: []result.Repeat{{Index: 1, Status: result.StatusFailed}}}
	r := load(t, planDir(t, x("x"), x("y"), failed), planDir(t, x("y"), x("z"), x("w")))
	if !reflect.DeepEqual(r.OnlyA, []string{"x"}) || !reflect.DeepEqual(r.OnlyB, []string{"z"}) {
		t.Errorf("only in A %q, only in B %q; want [x], [z]", r.OnlyA, r.OnlyB)
	}
	for _, row := range r.Rows {
		if row.Scenario != "y" && (row.Scenario != "w" || row.Metric.Name != "errors") {
			t.Errorf("row for scenario %s, %s; only y is in both with repeats ok, and w's errors", row.Scenario, row.Metric.Name)
		}
	}
	if got := find(t, r, "w", "errors")[2:]; !reflect.DeepEqual(got, []string{"1", "0", "-100.0%", "better"}) {
		t.Errorf("w's errors: %q", got)
	}
	if want := []string{"scenario w: no repeat ended ok in A; only its errors, faults and verification are compared"}; !reflect.DeepEqual(r.Notes, want) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
}

// producerDoc is producer-perf-test's document: the steady state's figures
// are the ones compared.
func producerDoc(rps float64, p99us int64) *result.Document {
	p := producer(1, latencyOf(1))
	p.Failed, p.SteadyState = 2, producer(rps, latencyOf(p99us))
	return &result.Document{Kind: result.KindProducerPerf, Producer: p}
}

// producer measured rps records/s of 1 KiB over a second, with latency l:
// figures a result holds, which Load checks (a rate is its records over
// its time).
func producer(rps float64, l result.Latency) *result.Producer {
	return &result.Producer{Records: int64(rps), Bytes: int64(rps) << 10, DurationSeconds: 1, RecordsPerSec: rps, MiBPerSec: rps / 1024, Latency: l}
}

// latencyOf is the latency of one value, us: its every percentile.
func latencyOf(us int64) result.Latency {
	h := measure.NewHistogram()
	h.Record(us)
	l, err := result.LatencyOf(h)
	if err != nil {
		panic(err)
	}
	return l
}

func TestCompareDropIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		a, b     *result.Document
		scenario string
		metric   string
		want     []string
	}{
		{"producer rate", producerDoc(1000, 10000), producerDoc(1100, 12000), "producer-perf-test",
			"records_per_sec", []string{"1000.0", "1100.0", "+10.0%", "better (" + NoteOneRepeat + ")"}},
		{"producer p99 from µs", producerDoc(1000, 10000), producerDoc(1100, 12000), "producer-perf-test",
			"p99_ms", []string{"10.000", "12.000", "+20.0%", "worse (" + NoteOneRepeat + ")"}},
		{"producer failed records", producerDoc(1000, 10000), producerDoc(1100, 12000), "producer-perf-test",
			"errors", []string{"2", "2", "0.0%", "same"}},
		{"end-to-end", &result.Document{Kind: result.KindEndToEnd, EndToEnd: ptr(latencyOf(2000))},
			&result.Document{Kind: result.KindEndToEnd, EndToEnd: ptr(latencyOf(1500))}, "end-to-end-latency",
			"e2e_p99_ms", []string{"2.000", "1.500", "-25.0%", "better (" + NoteOneRepeat + ")"}},
		{"consumer", &result.Document{Kind: result.KindConsumerPerf, Consumer: &result.Consumer{Records: 5000, DurationSeconds: 1, RecordsPerSec: 5000}},
			&result.Document{Kind: result.KindConsumerPerf, Consumer: &result.Consumer{Records: 4000, DurationSeconds: 1, RecordsPerSec: 4000}}, "consumer-perf-test",
			"consume_records_per_sec", []string{"5000.0", "4000.0", "-20.0%", "worse (" + NoteOneRepeat + ")"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Drop-in documents are given as files, as --json writes them.
			a := filepath.Join(writeDoc(t, tt.a), "result.json")
			b := filepath.Join(writeDoc(t, tt.b), "result.json")
			r := load(t, a, b)
			if got := find(t, r, tt.scenario, tt.metric)[2:]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: got %q, want %q", tt.metric, got, tt.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, path := range []string{empty, filepath.Join(empty, "missing.json")} {
		if _, err := Load(path); err == nil {
			t.Errorf("Load(%s): no error", path)
		}
	}
}

// TestCompareWorkloadsApart: regression: compare judged a p99 merged from a
// loaded producer and an end-to-end probe. With two producing workloads,
// the scenario's row compares their total rate and each workload's own
// figures have rows of their own.
func TestCompareWorkloadsApart(t *testing.T) {
	t.Parallel()
	lat := func(us ...int64) result.Latency {
		h := measure.NewHistogram()
		for _, v := range us {
			h.Record(v)
		}
		l, err := result.LatencyOf(h)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	probed := func(writerP99 int64) result.Scenario {
		sc := result.Scenario{Name: "s", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK, Workloads: []result.Workload{
			{Name: "writer", Type: "produce", Producer: producer(3000, lat(writerP99))},
			{Name: "probe", Type: "end-to-end", Producer: producer(50, lat(5000)), EndToEnd: ptr(lat(6000))},
		}}}}
		if err := result.AggregateScenario(&sc); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	r := load(t, planDir(t, probed(60_000_000)), planDir(t, probed(30_000_000)))
	if got := find(t, r, "s", "records_per_sec")[2:4]; !reflect.DeepEqual(got, []string{"3050.0", "3050.0"}) {
		t.Errorf("total records/s %q", got)
	}
	for _, row := range r.Rows {
		if row.Scenario == "s" && row.Metric.Name == "p99_ms" {
			t.Errorf("the scenario's p99 merges two workloads: %v", row.cells())
		}
	}
	if got := find(t, r, "s (writer)", "p99_ms")[5]; got != "better (1 repeat: spread unknown)" {
		t.Errorf("writer's p99 verdict %q", got)
	}
	if got := find(t, r, "s (probe)", "e2e_p99_ms")[2:5]; !reflect.DeepEqual(got, []string{"6.000", "6.000", "0.0%"}) {
		t.Errorf("probe's end-to-end p99 %q", got)
	}
}

func ptr[T any](v T) *T { return &v }
