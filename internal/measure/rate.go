package measure

import "time"

// MinRateSpan is the least stretch of time a live rate is shown from: a
// few records in a few milliseconds say nothing about a rate (27 records
// in 3 ms read as 9,000 records/s).
const MinRateSpan = 100 * time.Millisecond

// Folds reports whether a partial interval, the first or the last of a
// series of intervals of the given width, is too short to have a rate of
// its own: shorter than half an interval. A series adds such an interval
// to its neighbour, counts and length alike, so its records stay counted
// and the neighbour's rate is over its real length (up to 1.5 widths).
// This is the one place that decides it: the series in the result, the
// reports drawn from it and the live view all follow it.
func Folds(length, width time.Duration) bool {
	return length < width/2
}

// PerSecond is n per second over d; 0 when d is not positive.
func PerSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
