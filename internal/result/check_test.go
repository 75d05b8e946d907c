package result

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// planDoc is a plan run of one scenario with one ok repeat of one producer,
// aggregated.
func planDoc(t testing.TB) *Document {
	t.Helper()
	lat := latencyOf(t, 1000, 2000, 3000)
	sc := Scenario{Index: 1, Name: "s", Repeats: []Repeat{{Index: 1, Status: StatusOK, Workloads: []Workload{{
		Name: "p", Type: "produce", Producer: &Producer{Records: 3, DurationSeconds: 1, RecordsPerSec: 3, Latency: *lat},
	}}}}}
	if err := AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := New(KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Status = StatusOK
	doc.Plan = &PlanRun{Name: "study", Repeat: 1, Scenarios: []Scenario{sc}}
	return doc
}

// TestParseRejectsDamagedHistograms: regression: histograms left empty or
// damaged in a result file panicked in the decoder (kbench report died
// with a stack trace) or were only found after the summaries had been
// rewritten. Parse refuses the file and names the field.
func TestParseRejectsDamagedHistograms(t *testing.T) {
	t.Parallel()
	const repeatLatency = "plan.scenarios[0].repeats[0].workloads[0].producer.latency.histogram"
	tests := []struct {
		name   string
		damage func(*Document)
		want   string
	}{
		{"empty with a count", func(d *Document) { d.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer.Latency.Histogram = "" },
			repeatLatency + ": histogram is empty but count is 3"},
		{"not base64", func(d *Document) { d.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer.Latency.Histogram = "@@@@" },
			repeatLatency + ": decode histogram: not base64"},
		{"another count", func(d *Document) { d.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer.Latency.Count = 4 },
			repeatLatency + ": histogram holds 3 values but count is 4"},
		{"aggregate", func(d *Document) { d.Plan.Scenarios[0].Aggregate.Latency.Histogram = "AAAA" },
			"plan.scenarios[0].aggregate.latency.histogram: decode histogram"},
		{"a workload's aggregate", func(d *Document) { d.Plan.Scenarios[0].Aggregate.Workloads[0].Latency = &Latency{Count: 2} },
			"plan.scenarios[0].aggregate.workloads[0].latency.histogram: histogram is empty"},
		{"an interval's series count", func(d *Document) {
			w := &d.Plan.Scenarios[0].Repeats[0].Workloads[0]
			w.Type, w.Consumer = "end-to-end", &Consumer{Intervals: seriesOf(time.Unix(0, 0), [][]int64{{1, 2}})}
			w.Consumer.Intervals[0].LatencyCount = 3
		}, "workloads[0].consumer.intervals[0].latency_histogram: histogram holds 2 values but latency_count is 3"},
		{"an interval's series damaged", func(d *Document) {
			ivs := seriesOf(time.Unix(0, 0), [][]int64{{1, 2}})
			ivs[0].LatencyHistogram = "Ag"
			d.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer.Intervals = ivs
		}, "producer.intervals[0].latency_histogram: decode interval histogram: not format"},
		{"drop-in steady state", func(d *Document) {
			d.Plan = nil
			d.Producer = &Producer{Latency: *latencyOf(t, 5), SteadyState: &Producer{Latency: Latency{Count: 1}}}
		}, "producer.steady_state.latency.histogram: histogram is empty but count is 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := planDoc(t)
			tt.damage(doc)
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse("result.json", b)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "result.json") {
				t.Fatalf("Parse: %v\nwant an error naming the file and saying %q", err, tt.want)
			}
		})
	}
	// A latency that measured nothing may come without a histogram.
	doc := planDoc(t)
	doc.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer.SteadyState = &Producer{}
	b, _ := json.Marshal(doc)
	if _, err := Parse("result.json", b); err != nil {
		t.Fatalf("an empty latency without a histogram: %v", err)
	}
}

// FuzzParse: no result file, however damaged, panics the decoder or the
// statistics computed from it again (kbench report and compare do both).
func FuzzParse(f *testing.F) {
	good, err := json.Marshal(planDoc(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"schema":"kbench.result/v1","plan":{"scenarios":[{"repeats":[{"status":"ok","workloads":[{"name":"p","producer":{"latency":{"count":1,"histogram":""}}}]}]}]}}`))
	if files, _ := filepath.Glob("testdata/*.json"); len(files) > 0 {
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse("fuzz.json", data)
		if err != nil {
			return
		}
		if doc.Plan == nil {
			return
		}
		for i := range doc.Plan.Scenarios {
			if err := AggregateScenario(&doc.Plan.Scenarios[i]); err != nil {
				t.Fatalf("a document Parse accepted does not aggregate: %v", err)
			}
		}
	})
}
