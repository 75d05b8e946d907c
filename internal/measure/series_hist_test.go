package measure

import (
	"slices"
	"strings"
	"testing"
)

// TestSeriesHistogramRoundTrip: the encoding keeps every bucket, the
// percentiles read within 1.6% of the recorded values and within the
// exact min and max.
func TestSeriesHistogramRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		vals []int64
	}{
		{"small exact values", []int64{0, 1, 2, 63, 64, 65, 127}},
		{"1 ms to 1 s", func() (vs []int64) {
			for v := int64(1000); v <= 1_000_000; v += 997 {
				vs = append(vs, v)
			}
			return vs
		}()},
		{"sparse, with a gap and an hour", []int64{5, 5000, 5001, 2_000_000, MaxLatencyMicros + 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := NewSeriesHistogram()
			for _, v := range c.vals {
				h.Record(v)
			}
			d, err := DecodeSeries(h.Encode())
			if err != nil {
				t.Fatal(err)
			}
			d.SetExact(h.Count(), h.Sum(), h.Min(), h.Max())
			if d.Encode() != h.Encode() || d.Count() != int64(len(c.vals)) {
				t.Fatalf("decoded %d values %q, want %d %q", d.Count(), d.Encode(), len(c.vals), h.Encode())
			}
			for _, q := range []float64{0.01, 0.5, 0.99, 1} {
				want := c.vals[max(int(q*float64(len(c.vals))+0.999999)-1, 0)]
				got := d.Quantile(q)
				if want > MaxLatencyMicros {
					want = h.Max()
				}
				if diff := float64(got-want) / float64(max(want, 1)); diff > 0.016 || diff < -0.016 || got < h.Min() || got > h.Max() {
					t.Errorf("p%g: %d µs, want %d within 1.6%% and [%d, %d]", 100*q, got, want, h.Min(), h.Max())
				}
			}
		})
	}
}

// TestDecodeSeriesDamaged: what Encode never writes is an error, not a
// panic or a huge allocation.
func TestDecodeSeriesDamaged(t *testing.T) {
	for _, c := range []struct{ name, enc, want string }{
		{"not base64", "!!", "not base64"},
		{"other format", "Ag", "not format"},
		{"truncated run", "AQACAg", "truncated"},
		{"beyond the range", "AYCAgIAQAQI", "beyond"},
		{"zero count", "AQABAA", "count 0"},
		{"too long", strings.Repeat("A", maxSeriesEncoding+1), "more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := DecodeSeries(c.enc); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestSeriesHistogramMergeIsExact: merging two halves gives the buckets
// and exact statistics of the whole.
func TestSeriesHistogramMergeIsExact(t *testing.T) {
	whole, a, b := NewSeriesHistogram(), NewSeriesHistogram(), NewSeriesHistogram()
	for v := int64(1); v < 200_000; v = v*11/10 + 1 {
		whole.Record(v)
		if v%2 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
	}
	a.Merge(b)
	if a.Encode() != whole.Encode() || a.Count() != whole.Count() || a.Sum() != whole.Sum() || a.Min() != whole.Min() || a.Max() != whole.Max() {
		t.Errorf("merged %d/%d/%d/%d, whole %d/%d/%d/%d", a.Count(), a.Sum(), a.Min(), a.Max(), whole.Count(), whole.Sum(), whole.Min(), whole.Max())
	}
}

// TestSeriesAddEncodedIsMerge: adding encodings with their exact
// statistics equals decoding and merging them; a count the buckets do not
// hold is an error.
func TestSeriesAddEncodedIsMerge(t *testing.T) {
	var parts []*SeriesHistogram
	for p := range 3 {
		h := NewSeriesHistogram()
		for v := range 1000 * p { // part 0 is empty
			h.Record(int64(v*v%100_000 + p))
		}
		parts = append(parts, h)
	}
	merged, added := NewSeriesHistogram(), NewSeriesHistogram()
	for _, h := range parts {
		merged.Merge(h)
		if err := added.AddEncoded(h.Encode(), h.Count(), h.Sum(), h.Min(), h.Max()); err != nil {
			t.Fatal(err)
		}
	}
	if added.Encode() != merged.Encode() || added.Count() != merged.Count() || added.Sum() != merged.Sum() ||
		added.Min() != merged.Min() || added.Max() != merged.Max() || added.Quantile(0.99) != merged.Quantile(0.99) {
		t.Errorf("added %d/%d/%d/%d, merged %d/%d/%d/%d", added.Count(), added.Sum(), added.Min(), added.Max(),
			merged.Count(), merged.Sum(), merged.Min(), merged.Max())
	}
	if err := NewSeriesHistogram().AddEncoded(parts[1].Encode(), parts[1].Count()+1, 0, 0, 0); err == nil {
		t.Error("a count off by one was added")
	}
}

// TestSeriesHistogramHoldsItsRange: whatever order values come in (a
// slower one first, then faster), the histogram holds only the buckets
// from its fastest to its slowest value, and reads, encodes and merges
// as one that was filled in order.
func TestSeriesHistogramHoldsItsRange(t *testing.T) {
	t.Parallel()
	values := []int64{1800, 2500, 1200, 40_000, 1500, 3, 900_000, 2200}
	tests := []struct {
		name  string
		order []int
	}{
		{"ascending", []int{5, 2, 4, 0, 7, 1, 3, 6}},
		{"descending", []int{6, 4, 1, 7, 0, 3, 2, 5}},
		{"slow first, then mixed", []int{4, 0, 6, 2, 5, 1, 7, 3}},
	}
	want := NewSeriesHistogram()
	for _, v := range slices.Sorted(slices.Values(values)) {
		want.Record(v)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewSeriesHistogram()
			for _, k := range tt.order {
				h.Record(values[k])
			}
			if span := seriesIndex(h.Max()) - seriesIndex(h.Min()) + 1; len(h.counts) != span {
				t.Errorf("holds %d buckets, want %d (its fastest to its slowest)", len(h.counts), span)
			}
			if h.Encode() != want.Encode() {
				t.Errorf("encodes as %q, want %q", h.Encode(), want.Encode())
			}
			for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
				if h.Quantile(q) != want.Quantile(q) {
					t.Errorf("quantile %v: %d, want %d", q, h.Quantile(q), want.Quantile(q))
				}
			}
			// Halves merged either way round, the fast half into the slow.
			slow, fast := NewSeriesHistogram(), NewSeriesHistogram()
			for _, v := range values {
				if v > 2000 {
					slow.Record(v)
				} else {
					fast.Record(v)
				}
			}
			slow.Merge(fast)
			if slow.Encode() != want.Encode() || slow.Count() != want.Count() || slow.Min() != 3 {
				t.Errorf("merged %q (%d values, min %d), want %q", slow.Encode(), slow.Count(), slow.Min(), want.Encode())
			}
			h.Compact()
			// What is left is the allocator's size class (500 buckets: 512).
			if cap(h.counts) > len(h.counts)+len(h.counts)/8+8 || h.Encode() != want.Encode() {
				t.Errorf("compacted: %d buckets in a capacity of %d, encoding %q", len(h.counts), cap(h.counts), h.Encode())
			}
			h.Reset()
			h.Record(5000)
			if len(h.counts) != 1 || h.Quantile(0.5) != 5000 {
				t.Errorf("after Reset: %d buckets, p50 %d", len(h.counts), h.Quantile(0.5))
			}
		})
	}
}
