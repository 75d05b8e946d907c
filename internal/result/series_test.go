package result

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// seriesOf encodes latencies per interval as a series starting at start,
// one interval a second, as the runner writes it.
func seriesOf(start time.Time, lats [][]int64) []Interval {
	out := make([]Interval, len(lats))
	for i, vs := range lats {
		h := measure.NewSeriesHistogram()
		for _, v := range vs {
			h.Record(v)
		}
		iv := Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1, ElapsedSeconds: float64(i + 1), Records: int64(len(vs)), Bytes: 100 * int64(len(vs)), RecordsPerSec: float64(len(vs))}
		iv.SetLatency(h)
		out[i] = iv
	}
	return out
}

// TestMergeSeriesExact: one run's latencies split alternately between two
// clients, each encoded as its own series, merge into exactly the series of
// the whole run: count, sum, min, max and percentiles in every interval,
// empty intervals included.
func TestMergeSeriesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 38))
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	const intervals = 30
	all := make([][]int64, intervals)
	clients := [2][][]int64{make([][]int64, intervals), make([][]int64, intervals)}
	for i := range all {
		n := 2000 + r.IntN(2000)
		switch i {
		case 7, 8: // a stall: nothing completed
			n = 0
		case 20: // one record: only one client has latencies there
			n = 1
		}
		for k := range n {
			// 1–50 ms, log-uniform, with a rare tail to 2 s.
			v := int64(1000 * math.Exp(r.Float64()*math.Log(50)))
			if r.IntN(1000) == 0 {
				v = 50_000 + r.Int64N(2_000_000)
			}
			all[i] = append(all[i], v)
			clients[k%2][i] = append(clients[k%2][i], v)
		}
	}
	whole := seriesOf(start, all)
	a, b := seriesOf(start, clients[0]), seriesOf(start, clients[1])
	// A client's series may lack an interval (an empty one here) that
	// another has: the merge aligns on starts, not positions.
	b = append(b[:7:7], b[8:]...)
	merged, err := MergeSeries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != len(whole) {
		t.Fatalf("%d merged intervals, want %d", len(merged), len(whole))
	}
	for i, w := range whole {
		m := merged[i]
		wh, err := w.latencyHistogram()
		if err != nil {
			t.Fatal(err)
		}
		mh, err := m.latencyHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if (wh == nil) != (mh == nil) {
			t.Fatalf("interval %d: histogram %v, want %v", i, mh != nil, wh != nil)
		}
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"start", m.Start, w.Start},
			{"records", m.Records, w.Records},
			{"bytes", m.Bytes, w.Bytes},
			{"count", m.LatencyCount, w.LatencyCount},
			{"sum", m.LatencySumUs, w.LatencySumUs},
			{"min", m.LatencyMinUs, w.LatencyMinUs},
			{"max", m.LatencyMaxUs, w.LatencyMaxUs},
			{"histogram", m.LatencyHistogram, w.LatencyHistogram},
			{"p50 column", m.P50LatencyMs, w.P50LatencyMs},
			{"p99 column", m.P99LatencyMs, w.P99LatencyMs},
			{"p99.9 column", m.P999LatencyMs, w.P999LatencyMs},
			{"mean", m.AvgLatencyMs, w.AvgLatencyMs},
			{"upper bound", m.UpperBound, false},
		} {
			if c.got != c.want {
				t.Errorf("interval %d %s: merged %v, single series %v", i, c.what, c.got, c.want)
			}
		}
		if wh == nil {
			continue
		}
		for _, q := range []float64{0.5, 0.99, 0.999} {
			if g, w := mh.Quantile(q), wh.Quantile(q); g != w {
				t.Errorf("interval %d p%g: merged %d µs, single series %d", i, 100*q, g, w)
			}
		}
	}
}

// TestMergeSeriesV1UpperBound: intervals without histograms (a v1
// document) merge as upper bounds, and say so.
func TestMergeSeriesV1UpperBound(t *testing.T) {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	v1 := func(recs int64, avg, p99, maxMs float64) Interval {
		return Interval{Start: start, Seconds: 1, Records: recs, AvgLatencyMs: avg, P50LatencyMs: avg, P99LatencyMs: p99, P999LatencyMs: p99, MaxLatencyMs: maxMs}
	}
	v2 := seriesOf(start, [][]int64{{1000, 2000, 3000}})[0]
	for _, c := range []struct {
		name    string
		parts   []Interval
		bound   bool
		p99, mx float64
	}{
		{"v1 and v1", []Interval{v1(10, 2, 5, 6), v1(30, 4, 3, 9)}, true, 5, 9},
		{"v1 and v2", []Interval{v1(10, 2, 5, 6), v2}, true, 5, 6},
		{"v2 and an empty v1", []Interval{{Start: start, Seconds: 1}, v2}, false, v2.P99LatencyMs, v2.MaxLatencyMs},
	} {
		t.Run(c.name, func(t *testing.T) {
			var series [][]Interval
			for _, p := range c.parts {
				series = append(series, []Interval{p})
			}
			m, err := MergeSeries(series...)
			if err != nil {
				t.Fatal(err)
			}
			if got := m[0]; got.UpperBound != c.bound || got.P99LatencyMs != c.p99 || got.MaxLatencyMs != c.mx {
				t.Errorf("merged: upper bound %v p99 %g max %g, want %v %g %g", got.UpperBound, got.P99LatencyMs, got.MaxLatencyMs, c.bound, c.p99, c.mx)
			}
		})
	}
}

// TestSeriesSizePerHour measures what v2 keeps per interval for an hour of
// 1 s intervals at 20,000 records/s with latencies spread over 1–50 ms
// (log-uniform: the most buckets for that span), as result.json writes
// them. The goal is at most 1 MB of histograms per workload-hour; the
// figures are in docs/notes.md ("Intervals").
func TestSeriesSizePerHour(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	const rate, hour, kinds = 20_000, 3600, 60
	// kinds different intervals, repeated: the size per interval is the
	// same as with 3600 draws, in a fraction of the time.
	v1, v2 := make([]Interval, hour), make([]Interval, hour)
	for i := range kinds {
		h := measure.NewSeriesHistogram()
		for range rate {
			h.Record(int64(1000 * math.Exp(r.Float64()*math.Log(50))))
		}
		v2[i] = Interval{Seconds: 1, Records: rate, Bytes: 100 * rate, RecordsPerSec: rate, Steady: true}
		v2[i].SetLatency(h)
	}
	var hist int
	for i := range hour {
		iv := v2[i%kinds]
		iv.Start, iv.ElapsedSeconds = start.Add(time.Duration(i)*time.Second), float64(i+1)
		v2[i] = iv
		hist += len(iv.LatencyHistogram)
		iv.LatencyCount, iv.LatencySumUs, iv.LatencyMinUs, iv.LatencyMaxUs, iv.LatencyHistogram = 0, 0, 0, 0, ""
		v1[i] = iv
	}
	size := func(ivs []Interval) int {
		// Indented as result.Write does, at the depth of a plan's
		// workload (plan.scenarios[].repeats[].workloads[].producer).
		b, err := json.MarshalIndent(Producer{Intervals: ivs}, strings.Repeat("  ", 10), "  ")
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	s1, s2 := size(v1), size(v2)
	t.Logf("an hour of 1 s intervals at %d records/s: histograms %d bytes (%d per interval); intervals %d bytes in v1, %d in v2 (+%d, %d per interval with the exact fields)",
		rate, hist, hist/hour, s1, s2, s2-s1, (s2-s1)/hour)
	if hist > 1_000_000 {
		t.Errorf("%d bytes of histograms per workload-hour, over the goal of 1 MB", hist)
	}
}

// TestV1DocumentLoads: a v1 result (testdata/v1-result.json, written by a
// plan run of the kbench before v2) still reads, and its intervals, which
// have no histograms, merge as upper bounds, marked so.
func TestV1DocumentLoads(t *testing.T) {
	doc, err := Read("testdata/v1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Schema != SchemaV1 {
		t.Fatalf("schema %q, want %q", doc.Schema, SchemaV1)
	}
	w := doc.Plan.Scenarios[0].Repeats[0].Workloads[0]
	if w.Producer == nil || len(w.Producer.Intervals) == 0 {
		t.Fatalf("workload %q: no producer intervals", w.Name)
	}
	ivs := w.Producer.Intervals
	merged, err := MergeSeries(ivs, ivs)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != len(ivs) {
		t.Fatalf("%d merged intervals, want %d", len(merged), len(ivs))
	}
	for i, m := range merged {
		if m.Records != 2*ivs[i].Records || m.P99LatencyMs != ivs[i].P99LatencyMs || m.UpperBound != ivs[i].hasLatency() || m.LatencyHistogram != "" {
			t.Errorf("interval %d: records %d p99 %g upper bound %v histogram %q, want %d %g %v none",
				i, m.Records, m.P99LatencyMs, m.UpperBound, m.LatencyHistogram, 2*ivs[i].Records, ivs[i].P99LatencyMs, ivs[i].hasLatency())
		}
	}
}

// TestMergeSeriesWithinWorkers: distributed workers close their intervals
// on one grid of clocks that differ a little: intervals starting within
// the tolerance are one interval of the merge (starting at the earliest),
// intervals further apart stay apart, and two intervals of one series are
// never taken as one.
func TestMergeSeriesWithinWorkers(t *testing.T) {
	start := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	lats := [][]int64{{1000, 2000}, {3000}, {4000, 5000}}
	tests := []struct {
		name      string
		shift     time.Duration // the second worker's intervals, after the first's
		tol       time.Duration
		intervals int
	}{
		{name: "same instant", shift: 0, tol: WorkerAlignment, intervals: 3},
		{name: "timer a few ms late", shift: 3 * time.Millisecond, tol: WorkerAlignment, intervals: 3},
		{name: "beyond the tolerance", shift: 200 * time.Millisecond, tol: WorkerAlignment, intervals: 6},
		{name: "exact merge of a single process", shift: time.Millisecond, tol: 0, intervals: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := seriesOf(start, lats), seriesOf(start.Add(tt.shift), lats)
			got, err := mergeSeriesWithin(tt.tol, a, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.intervals {
				t.Fatalf("%d intervals, want %d", len(got), tt.intervals)
			}
			var records int64
			for _, iv := range got {
				records += iv.Records
			}
			if records != 10 {
				t.Errorf("%d records in the merge, want 10", records)
			}
			if tt.intervals == 3 && (!got[0].Start.Equal(start) || got[0].Records != 4 || got[0].LatencyCount != 4 || got[0].MaxLatencyMs != 2) {
				t.Errorf("first interval %+v: want the earliest start and both workers' 4 records", got[0])
			}
		})
	}
	// One series' own intervals stay apart even when closer than tol.
	close := seriesOf(start, lats)
	close[1].Start = start.Add(10 * time.Millisecond)
	got, err := mergeSeriesWithin(WorkerAlignment, close)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("%d intervals of one series, want its 3", len(got))
	}
}
