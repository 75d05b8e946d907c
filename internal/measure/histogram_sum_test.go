package measure

import (
	"math/rand/v2"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistogramSumIsMerge: adding encodings equals decoding and merging
// them: the same counts (the same encoding), the same exact statistics
// and percentiles; an empty histogram changes nothing.
func TestHistogramSumIsMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	merged := NewHistogram()
	var sum HistogramSum
	for part := range 4 {
		h := NewHistogram()
		for range 20_000 * part { // part 0 is empty
			h.Record(int64(rng.ExpFloat64() * 3000))
		}
		if part == 2 {
			h.Record(2 * MaxLatencyMicros) // over the range
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := sum.Add(enc, h.Count(), h.Sum(), h.Min(), h.Max(), h.OverRange(), h.Negative()); err != nil {
			t.Fatalf("part %d: %v", part, err)
		}
		merged.Merge(h)
	}
	got := sum.Histogram()
	want, _ := merged.Encode()
	if enc, _ := got.Encode(); enc != want {
		t.Error("the sum's counts differ from the merge's")
	}
	if got.Count() != merged.Count() || got.Sum() != merged.Sum() || got.Min() != merged.Min() || got.Max() != merged.Max() || got.OverRange() != merged.OverRange() {
		t.Errorf("sum %d/%d/%d/%d/%d, merge %d/%d/%d/%d/%d", got.Count(), got.Sum(), got.Min(), got.Max(), got.OverRange(),
			merged.Count(), merged.Sum(), merged.Min(), merged.Max(), merged.OverRange())
	}
	for _, q := range []float64{0.5, 0.99, 0.999, 1} {
		if got.Quantile(q) != merged.Quantile(q) {
			t.Errorf("p%v: sum %d, merge %d", q*100, got.Quantile(q), merged.Quantile(q))
		}
	}
}

// TestHistogramSumRefusesDamage: what Decode refuses, Add refuses, and a
// count that does not match the encoding is an error.
func TestHistogramSumRefusesDamage(t *testing.T) {
	h := NewHistogram()
	h.Record(10)
	enc, _ := h.Encode()
	other, _ := (&Histogram{h: hdrhistogram.New(1, 1<<40, 5)}).Encode()
	for _, tt := range []struct {
		name, enc string
		count     int64
		want      string
	}{
		{"not base64", "!!", 1, "not base64"},
		{"short", "AAAA", 1, "too short"},
		{"another range", other, 0, "not kbench's"},
		{"count off", enc, 2, "holds 1 values but its count is 2"},
		{"empty with a count", "", 1, "empty, but its count is 1"},
	} {
		var s HistogramSum
		if err := s.Add(tt.enc, tt.count, 10, 10, 10, 0, 0); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
