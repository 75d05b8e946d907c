package measure

import (
	"encoding/base64"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
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

// TestHistogramOutOfRange: regression: values outside the histogram
// vanished: latencies over an hour were clamped without a count and
// negative ones (clock skew) recorded as 0.
func TestHistogramOutOfRange(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	h.Record(-5)                   // a clock step backwards
	h.Record(MaxLatencyMicros * 3) // longer than tracked
	h.Record(10)
	if h.Count() != 2 || h.Negative() != 1 || h.OverRange() != 1 {
		t.Fatalf("count %d negative %d over range %d; want 2, 1, 1", h.Count(), h.Negative(), h.OverRange())
	}
	if h.Min() != 10 || h.Max() != MaxLatencyMicros*3 || h.Sum() != MaxLatencyMicros*3+10 {
		t.Fatalf("min %d max %d sum %d; want the exact values", h.Min(), h.Max(), h.Sum())
	}
	if q := h.Quantile(1); q != MaxLatencyMicros*3 && (q < MaxLatencyMicros || q > MaxLatencyMicros+MaxLatencyMicros/1000) {
		t.Fatalf("p100 %d", q)
	}
	o := NewHistogram()
	o.Record(-1)
	o.Record(MaxLatencyMicros + 1)
	h.Merge(o)
	if h.Negative() != 2 || h.OverRange() != 2 || h.Count() != 3 {
		t.Fatalf("after merge: negative %d over range %d count %d", h.Negative(), h.OverRange(), h.Count())
	}
}

// TestHistogramExactMaxMean: regression: Max() was the top of the value's
// bucket and Mean() used bucket midpoints, so a recorded 2,293,300 µs
// printed as 2293.76 ms and the summary max could exceed every interval max.
func TestHistogramExactMaxMean(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	for _, v := range []int64{2_293_300, 1_000_001, 3} {
		h.Record(v)
	}
	if h.Max() != 2_293_300 || h.Min() != 3 || h.Sum() != 3_293_304 || h.Mean() != 3_293_304.0/3 {
		t.Fatalf("max %d min %d sum %d mean %v; want the exact values", h.Max(), h.Min(), h.Sum(), h.Mean())
	}
	if q := h.Quantile(1); q != 2_293_300 {
		t.Fatalf("p100 %d: percentiles must stay within the exact max", q)
	}
	a, b := NewHistogram(), NewHistogram()
	a.Record(7)
	b.Record(2_293_300)
	a.Merge(b)
	if a.Max() != 2_293_300 || a.Min() != 7 || a.Sum() != 2_293_307 {
		t.Fatalf("merged max %d min %d sum %d", a.Max(), a.Min(), a.Sum())
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
	if got.Count() != h.Count() || got.Quantile(0.99) != h.Quantile(0.99) {
		t.Fatalf("decoded count %d p99 %d; want %d %d", got.Count(), got.Quantile(0.99), h.Count(), h.Quantile(0.99))
	}
	// The encoding keeps only the HdrHistogram part; SetExact restores the rest.
	got.SetExact(h.Count(), h.Sum(), h.Min(), h.Max(), h.OverRange(), h.Negative())
	if got.Count() != h.Count() || got.Max() != h.Max() || got.Quantile(0.99) != h.Quantile(0.99) || got.Mean() != h.Mean() {
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

// TestDecodeRejectsDamaged: regression: an empty or damaged histogram in a
// result file panicked inside the HdrHistogram library (slice bounds) and
// took `kbench report` down with it; a header asking for another range
// made it allocate what the header said.
func TestDecodeRejectsDamaged(t *testing.T) {
	t.Parallel()
	h := NewHistogram()
	h.Record(1500)
	good, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	other, err := (&Histogram{h: hdrhistogram.New(1, 1<<40, 5)}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(good)
	tests := []struct{ name, in, want string }{
		{"empty", "", "too short"},
		{"not base64", "%%%", "not base64"},
		{"short", base64.StdEncoding.EncodeToString([]byte{0x1c, 0x84}), "too short"},
		{"other cookie", base64.StdEncoding.EncodeToString(make([]byte, 12)), "not an HdrHistogram"},
		{"cut short", base64.StdEncoding.EncodeToString(raw[:len(raw)-4]), "compressed length"},
		{"negative length", base64.StdEncoding.EncodeToString(append(raw[:4:4], 0xff, 0xff, 0xff, 0xff)), "compressed length"},
		{"other range", other, "not kbench's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decode(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode: %v, want an error saying %q", err, tt.want)
			}
		})
	}
	if back, err := Decode(good); err != nil || back.Count() != 1 {
		t.Fatalf("a good histogram: %v", err)
	}
}
