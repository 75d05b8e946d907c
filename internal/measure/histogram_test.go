package measure

import (
	"testing"
)

func TestHistogramRecordAndQuantiles(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	for v := int64(1); v <= 10000; v++ {
		h.Record(v)
	}
	tests := []struct {
		q    float64
		want int64
	}{{0.5, 5000}, {0.9, 9000}, {0.99, 9900}, {0.999, 9990}, {1, 10000}}
	for _, tt := range tests {
		got := h.Quantile(tt.q)
		// 3 significant digits: within 0.1%.
		if diff := got - tt.want; diff < -tt.want/1000-1 || diff > tt.want/1000+1 {
			t.Errorf("Quantile(%v) = %d, want %d ±0.1%%", tt.q, got, tt.want)
		}
	}
	if h.Count() != 10000 || h.Min() != 1 || h.Max() < 10000 || h.Max() > 10010 {
		t.Fatalf("count %d min %d max %d", h.Count(), h.Min(), h.Max())
	}
}

func TestHistogramClamps(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	h.Record(-5)                   // a clock step backwards
	h.Record(MaxLatencyMicros * 3) // longer than tracked
	if h.Count() != 2 {
		t.Fatalf("count %d: out-of-range values must still count", h.Count())
	}
	if h.Min() != 0 {
		t.Fatalf("min %d, want 0", h.Min())
	}
	if h.Max() < MaxLatencyMicros || h.Max() > MaxLatencyMicros+MaxLatencyMicros/1000 {
		t.Fatalf("max %d, want about %d", h.Max(), MaxLatencyMicros)
	}
}

func TestHistogramEmpty(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	if h.Count() != 0 || h.Min() != 0 || h.Max() != 0 || h.Quantile(0.99) != 0 {
		t.Fatal("an empty histogram must report zeros")
	}
}

// TestHistogramMergeIsExact: merging per-client histograms gives the same
// percentiles as recording everything in one.
func TestHistogramMergeIsExact(t *testing.T) {
	t.Parallel()
	all, a, b := NewHistogram(), NewHistogram(), NewHistogram()
	for v := int64(1); v <= 5000; v++ {
		all.Record(v * 3)
		if v%2 == 0 {
			a.Record(v * 3)
		} else {
			b.Record(v * 3)
		}
	}
	a.Merge(b)
	a.Merge(nil)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		if a.Quantile(q) != all.Quantile(q) {
			t.Fatalf("q%v: merged %d, single %d", q, a.Quantile(q), all.Quantile(q))
		}
	}
	if a.Count() != all.Count() {
		t.Fatalf("count %d vs %d", a.Count(), all.Count())
	}
}

func TestHistogramEncodeDecode(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	for v := int64(100); v < 200000; v += 7 {
		h.Record(v)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Count() != h.Count() || got.Max() != h.Max() || got.Quantile(0.99) != h.Quantile(0.99) {
		t.Fatalf("decoded count %d max %d p99 %d; want %d %d %d",
			got.Count(), got.Max(), got.Quantile(0.99), h.Count(), h.Max(), h.Quantile(0.99))
	}
	if _, err := Decode("not a histogram"); err == nil {
		t.Fatal("Decode of garbage must fail")
	}
}

func TestWindow(t *testing.T) {
	t.Parallel()
	var w Window
	for _, r := range []struct{ bytes, lat int64 }{{100, 10}, {200, 30}, {50, 20}} {
		w.AddStats(WindowStats{Count: 1, Bytes: r.bytes, LatSumUs: r.lat, LatMaxUs: r.lat, LatCount: 1})
	}
	s := w.Take()
	if s.Count != 3 || s.Bytes != 350 || s.LatSumUs != 60 || s.LatMaxUs != 30 || s.LatCount != 3 || s.AvgLatencyMicros() != 20 {
		t.Fatalf("stats %+v", s)
	}
	if z := w.Take(); z != (WindowStats{}) || z.AvgLatencyMicros() != 0 {
		t.Fatalf("Take must reset the window: %+v", z)
	}
	s.Merge(WindowStats{Count: 1, Bytes: 1, LatSumUs: 100, LatMaxUs: 100, LatCount: 1})
	if s.Count != 4 || s.LatMaxUs != 100 || s.Bytes != 351 || s.LatCount != 4 || s.AvgLatencyMicros() != 40 {
		t.Fatalf("merged %+v", s)
	}
	// A consumer sums latencies of only some records: the mean is over those.
	var c Window
	c.AddStats(WindowStats{Count: 10, Bytes: 1000, LatSumUs: 50, LatMaxUs: 30, LatCount: 2})
	if got := c.Take(); got.Count != 10 || got.AvgLatencyMicros() != 25 {
		t.Fatalf("partial latencies: %+v, mean %v", got, got.AvgLatencyMicros())
	}
}

func TestErrorCounts(t *testing.T) {
	t.Parallel()
	var e ErrorCounts
	for _, k := range []string{"B", "A", "B", "C", "B", "A"} {
		e.Add(k)
	}
	if e.Total() != 6 {
		t.Fatalf("total %d", e.Total())
	}
	kinds := e.Kinds()
	if len(kinds) != 3 || kinds[0] != "B" || kinds[1] != "A" || kinds[2] != "C" {
		t.Fatalf("kinds %v, want most frequent first", kinds)
	}
	snap := e.Snapshot()
	snap["B"] = 0
	if e.Snapshot()["B"] != 3 {
		t.Fatal("Snapshot must be a copy")
	}
}

func TestProcessCPU(t *testing.T) {
	t.Parallel()
	before := ProcessCPU()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ (x >> 3)
	}
	if ProcessCPU() <= before || x == 42 {
		t.Fatal("CPU time must grow while the process computes")
	}
}
