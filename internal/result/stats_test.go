package result

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/measure"
)

func TestDescribe(t *testing.T) {
	sd5 := 1.5811388300841898 // sample stdev of 1..5
	f5 := math.Exp(2.7764451051977987 * sd5 / math.Sqrt(5) / 3)
	sd4 := math.Sqrt(50.0 / 3)
	f4 := math.Exp(3.182446305284263 * sd4 / 2 / 4)
	tests := []struct {
		name string
		in   []float64
		want Stats
	}{
		{"empty", nil, Stats{}},
		{"one", []float64{7}, Stats{N: 1, Mean: 7, Median: 7, Min: 7, Max: 7}},
		{"two", []float64{4, 2}, Stats{N: 2, Mean: 3, Median: 3, Min: 2, Max: 4, Stdev: math.Sqrt2, CV: math.Sqrt2 / 3}},
		{"odd", []float64{5, 1, 4, 2, 3}, Stats{N: 5, Mean: 3, Median: 3, Min: 1, Max: 5, Stdev: sd5,
			CI95Low: ptr(3 / f5), CI95High: ptr(3 * f5), CV: sd5 / 3}},
		{"even median", []float64{1, 2, 3, 10}, Stats{N: 4, Mean: 4, Median: 2.5, Min: 1, Max: 10, Stdev: sd4,
			CI95Low: ptr(4 / f4), CI95High: ptr(4 * f4), CV: sd4 / 4}},
		{"all zero", []float64{0, 0, 0}, Stats{N: 3, CI95Low: ptr(0.0), CI95High: ptr(0.0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Describe(tt.in)
			if !close(got, tt.want) {
				t.Errorf("Describe(%v)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }

func close(a, b Stats) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)) }
	eqp := func(x, y *float64) bool { return x == nil && y == nil || x != nil && y != nil && eq(*x, *y) }
	return a.N == b.N && eq(a.Mean, b.Mean) && eq(a.Median, b.Median) && eq(a.Min, b.Min) && eq(a.Max, b.Max) &&
		eq(a.Stdev, b.Stdev) && eqp(a.CI95Low, b.CI95Low) && eqp(a.CI95High, b.CI95High) && eq(a.CV, b.CV)
}

// TestConfidenceIntervalInDomain: regression: with two repeats the 95%
// interval of a p99 latency read -977 ms to 1,222 ms, and a rate's could go
// below zero. result.json gives no interval below three repeats, and from
// three on one that stays positive and holds the mean.
func TestConfidenceIntervalInDomain(t *testing.T) {
	tests := []struct {
		name   string
		in     []float64
		wantCI bool
	}{
		{"p99 of two repeats", []float64{12.4, 210.0}, false},
		{"one repeat", []float64{50}, false},
		{"p99 of three repeats, one stalled", []float64{12.4, 14.1, 1200}, true},
		{"a rate that collapsed once", []float64{90000, 91000, 300}, true},
		{"a count that was once 0", []float64{0, 0, 12}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(Describe(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]float64
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			lo, hasLo := got["ci95_low"]
			hi, hasHi := got["ci95_high"]
			if !tt.wantCI {
				if hasLo || hasHi {
					t.Fatalf("%d repeats give an interval %v to %v: %s", len(tt.in), lo, hi, b)
				}
				return
			}
			if !hasLo || !hasHi || lo < 0 || lo > got["mean"] || hi < got["mean"] {
				t.Fatalf("interval %v to %v around a mean of %v of values that cannot be negative: %s", lo, hi, got["mean"], b)
			}
		})
	}
}

func TestT95BeyondTable(t *testing.T) {
	if t95(30) != 2.0422724563012373 || t95(1000) != 1.959963984540054 {
		t.Fatalf("t95(30) = %v, t95(1000) = %v", t95(30), t95(1000))
	}
}

func latencyOf(t testing.TB, values ...int64) *Latency {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	l, err := LatencyOf(h)
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

// TestMergeLatenciesExact: decoded latencies re-aggregate exactly: count,
// sum, min and max are the recorded ones, percentiles those of one
// histogram holding every value.
func TestMergeLatenciesExact(t *testing.T) {
	var all []int64
	var a, b []int64
	for v := int64(1); v <= 1000; v++ {
		all = append(all, v*1009)
		if v%3 == 0 {
			a = append(a, v*1009)
		} else {
			b = append(b, v*1009)
		}
	}
	got, err := MergeLatencies([]*Latency{latencyOf(t, a...), latencyOf(t, b...)})
	if err != nil {
		t.Fatal(err)
	}
	want := latencyOf(t, all...)
	if got.Count != 1000 || got.Sum != 1009*500500 || got.Min != 1009 || got.Max != 1_009_000 || got.Mean != 1009*500.5 {
		t.Errorf("merged count %d sum %d min %d max %d mean %v", got.Count, got.Sum, got.Min, got.Max, got.Mean)
	}
	if got.P50 != want.P50 || got.P99 != want.P99 || got.P999 != want.P999 {
		t.Errorf("merged p50 %d p99 %d p99.9 %d; one histogram gives %d %d %d", got.P50, got.P99, got.P999, want.P50, want.P99, want.P999)
	}
}

func TestAggregateScenario(t *testing.T) {
	rep := func(i int, status string, rps float64, lat *Latency) Repeat {
		return Repeat{Index: i, Status: status, SetupSeconds: 1, Workloads: []Workload{{
			Name: "p", Type: "produce",
			Producer: &Producer{Records: 1000, RecordsPerSec: rps, MiBPerSec: rps / 1000, Latency: *lat},
		}}}
	}
	sc := Scenario{Name: "s", Repeats: []Repeat{
		rep(1, StatusOK, 100, latencyOf(t, 1000, 2000)),
		rep(2, StatusOK, 200, latencyOf(t, 3000, 4000)),
		rep(3, StatusFailed, 999, latencyOf(t, 9_000_000)),
		rep(4, StatusOK, 300, latencyOf(t, 5000, 6000)),
	}}
	if err := AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	a := sc.Aggregate
	if a.Repeats != 3 || a.LeftOut != 1 || a.Errors != 1 {
		t.Fatalf("repeats %d left out %d errors %d; want 3, 1, 1", a.Repeats, a.LeftOut, a.Errors)
	}
	if a.RecordsPerSec.Mean != 200 || a.RecordsPerSec.Median != 200 || a.RecordsPerSec.Stdev != 100 || !a.Unstable {
		t.Errorf("records/s %+v, unstable %v", a.RecordsPerSec, a.Unstable)
	}
	if a.Latency.Count != 6 || a.Latency.Max != 6000 || a.Latency.Min != 1000 || a.MaxMs.Mean != 4 {
		t.Errorf("merged latency count %d min %d max %d; max_ms mean %v", a.Latency.Count, a.Latency.Min, a.Latency.Max, a.MaxMs.Mean)
	}
	if a.EndToEnd != nil || a.ConsumeRecordsPerSec != nil {
		t.Errorf("end-to-end or consume stats without such workloads")
	}
}

// TestAggregateScenarioKeepsWorkloadsApart: regression: a scenario's
// publish percentiles merged a loaded producer's latencies with an
// end-to-end probe's, and its records/s added the probe's without saying
// so. Each workload keeps its own figures; the totals name what they add.
func TestAggregateScenarioKeepsWorkloadsApart(t *testing.T) {
	rep := func(i int) Repeat {
		return Repeat{Index: i, Status: StatusOK, Workloads: []Workload{
			{Name: "writer", Type: "produce", Producer: &Producer{Records: 3000, RecordsPerSec: 3000, Latency: *latencyOf(t, 60_000_000, 66_000_000)}},
			{Name: "probe", Type: "end-to-end", Producer: &Producer{Records: 50, RecordsPerSec: 50, Latency: *latencyOf(t, 4000, 5000)},
				EndToEnd: latencyOf(t, 5000, 5300)},
			{Name: "readers", Type: "consume", Consumer: &Consumer{RecordsPerSec: 2900}},
		}}
	}
	sc := Scenario{Name: "s", Repeats: []Repeat{rep(1), rep(2)}}
	if err := AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	a := sc.Aggregate
	if a.RecordsPerSec.Mean != 3050 || strings.Join(a.Producers, ",") != "writer,probe" || strings.Join(a.Consumers, ",") != "readers" {
		t.Errorf("total records/s %v from %v, consumers %v; want 3050 from writer and probe, readers", a.RecordsPerSec.Mean, a.Producers, a.Consumers)
	}
	if a.P99Ms.N != 0 || a.Latency != nil {
		t.Errorf("the scenario's publish latency merges two workloads: p99 %+v", a.P99Ms)
	}
	if a.EndToEnd == nil || a.EndToEnd.Count != 4 || a.EndToEndP99Ms.Mean != 5.3 {
		t.Errorf("end-to-end latency, measured by the probe alone: %+v", a.EndToEnd)
	}
	if len(a.Workloads) != 3 {
		t.Fatalf("%d workloads, want 3", len(a.Workloads))
	}
	w, p, r := a.Workloads[0], a.Workloads[1], a.Workloads[2]
	if w.Name != "writer" || w.P99Ms.Mean < 60000 || w.RecordsPerSec.Mean != 3000 || w.EndToEnd != nil || w.ConsumeRecordsPerSec != nil {
		t.Errorf("writer %+v", w)
	}
	if p.Name != "probe" || p.P99Ms.Mean != 5 || p.Latency.Count != 4 || p.EndToEndP99Ms.Mean != 5.3 {
		t.Errorf("probe %+v", p)
	}
	if r.Name != "readers" || r.ConsumeRecordsPerSec.Mean != 2900 || r.RecordsPerSec != nil || r.P99Ms != nil {
		t.Errorf("readers %+v", r)
	}
}

// TestAggregateScenarioInterrupted: regression: a scenario whose only
// repeat was interrupted got no statistics, so its summary row was empty.
// Its figures are kept apart from ok repeats' (Interrupted), and only when
// no repeat ended ok.
func TestAggregateScenarioInterrupted(t *testing.T) {
	rep := func(i int, status string, rps float64) Repeat {
		return Repeat{Index: i, Status: status, Workloads: []Workload{{Name: "p", Type: "produce",
			Producer: &Producer{Records: 10, RecordsPerSec: rps, Latency: *latencyOf(t, 1000)}}}}
	}
	only := Scenario{Name: "s", Repeats: []Repeat{rep(1, StatusFailed, 5), rep(2, StatusInterrupted, 70)}}
	if err := AggregateScenario(&only); err != nil {
		t.Fatal(err)
	}
	if only.Aggregate != nil || only.Interrupted == nil {
		t.Fatalf("aggregate %v, interrupted %v; want the interrupted repeat's figures apart", only.Aggregate, only.Interrupted)
	}
	if i := only.Interrupted; i.Repeats != 1 || i.LeftOut != 1 || i.RecordsPerSec.Mean != 70 || i.Errors != 1 {
		t.Errorf("interrupted: repeats %d, left out %d, records/s %v, errors %d; want 1, 1 (the failed one), 70, 1", i.Repeats, i.LeftOut, i.RecordsPerSec.Mean, i.Errors)
	}
	mixed := Scenario{Name: "s", Repeats: []Repeat{rep(1, StatusOK, 50), rep(2, StatusInterrupted, 70)}}
	if err := AggregateScenario(&mixed); err != nil {
		t.Fatal(err)
	}
	if mixed.Interrupted != nil || mixed.Aggregate.RecordsPerSec.Mean != 50 || mixed.Aggregate.LeftOut != 1 {
		t.Errorf("with an ok repeat, the interrupted one is left out: %+v", mixed.Aggregate)
	}
}
