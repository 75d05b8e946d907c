package ombresult

import (
	"testing"

	"github.com/kbench/kbench/internal/measure"
)

// TestQuantilesFollowJavasIterator: HdrHistogram's percentile iterator
// with 100 ticks per half distance steps 0.5% below 50%, 0.25% to 75%,
// 0.125% to 87.5% ...; OMB's map keeps, for each bucket the iterator
// stops at, the percentile of the values up to it. Values 1..1000 µs (each
// its own bucket) are 0.1% apart, so the keys are the first multiple of
// 0.1 at or past each level.
func TestQuantilesFollowJavasIterator(t *testing.T) {
	t.Parallel()
	h := measure.NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		h.Record(v)
	}
	qs := quantiles(h, inMs)
	got := map[float64]float64{}
	var keys []float64
	for _, q := range qs {
		got[q.Percentile] = q.Value
		keys = append(keys, q.Percentile)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] <= keys[i-1] {
			t.Fatalf("keys not ascending: %v", keys)
		}
	}
	for _, tc := range []struct{ pct, ms float64 }{
		{0.1, 0.001}, // level 0: the first bucket
		{0.5, 0.005}, // then every 0.5%
		{1.0, 0.010},
		{49.5, 0.495},
		{50.0, 0.500},
		{50.3, 0.503}, // from 50%, every 0.25%: 50.25 is reached at 50.3
		{50.5, 0.505},
		{75.0, 0.750},
		{75.2, 0.752}, // from 75%, every 0.125%: 75.125 at 75.2
		{100, 1.000},
	} {
		v, ok := got[tc.pct]
		if !ok {
			// Percentiles are 100·count/total: compare as computed.
			for k, kv := range got {
				if k > tc.pct-1e-9 && k < tc.pct+1e-9 {
					v, ok = kv, true
				}
			}
		}
		if !ok || v != tc.ms {
			t.Errorf("quantile %v: got %v (present %v), want %v ms", tc.pct, v, ok, tc.ms)
		}
	}
	for _, absent := range []float64{0.2, 0.3, 0.7, 50.1, 50.2, 75.1} {
		for k := range got {
			if k > absent-1e-9 && k < absent+1e-9 {
				t.Errorf("quantile %v present: the iterator does not stop there", absent)
			}
		}
	}
	if n := len(qs); n < 300 || n > 500 {
		t.Errorf("%d quantiles, want a few hundred as OMB's", n)
	}
}

func TestQuantilesEmptyAndOne(t *testing.T) {
	t.Parallel()
	if qs := quantiles(measure.NewHistogram(), inMs); qs != nil {
		t.Errorf("empty histogram: %v, want none (OMB's empty map)", qs)
	}
	h := measure.NewHistogram()
	h.Record(12345)
	qs := quantiles(h, inMs)
	if len(qs) != 1 || qs[0].Percentile != 100 || qs[0].Value != 12.345 {
		t.Errorf("one value: %v, want [{100 12.345}] (kept within the exact max)", qs)
	}
}
