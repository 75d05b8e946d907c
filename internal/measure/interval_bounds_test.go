package measure

import "testing"

// TestIntervalPercentilesWithinExactBounds guards issue 33 item 3: an
// interval's percentiles were read off its 2-digit histogram unclamped,
// and 345 of a run's 575 intervals had a p99 above their exact max
// (970.751 ms against 970.543).
func TestIntervalPercentilesWithinExactBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		values   []int64
		min, max int64
	}{
		{"the report's interval", []int64{970_543}, 970_543, 970_543},
		{"a spread", []int64{1_234, 5_678, 970_543}, 1_234, 970_543},
		{"zero latency", []int64{0, 0}, 0, 0},
		{"negative left out", []int64{-7, 333}, 333, 333},
	}
	for _, tt := range tests {
		ih := NewIntervalHistogram()
		for round := range 2 { // the second round checks the bounds were reset
			ih.RecordAll(tt.values)
			for i, q := range ih.Take(0.001, 50, 99, 99.9, 100) {
				if q < tt.min || q > tt.max {
					t.Errorf("%s, round %d: percentile %d is %d µs, outside the exact %d to %d", tt.name, round, i, q, tt.min, tt.max)
				}
			}
		}
	}
}
