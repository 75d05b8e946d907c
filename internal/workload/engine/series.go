package engine

import (
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// MaxSeries bounds every series a workload keeps (producer and consumer
// intervals, lag samples): at the bound, neighbouring entries merge
// pairwise, so a day-long run keeps no more than a short one and only its
// older part gets coarser. 4096 one-second intervals are 68 minutes at full
// resolution.
const MaxSeries = 4096

// AppendBounded appends v to s, halving s by merge once it holds MaxSeries
// entries.
func AppendBounded[T any](s []T, v T, merge func(a, b T) T) []T {
	s = append(s, v)
	if len(s) < MaxSeries {
		return s
	}
	out := s[:0]
	for i := 0; i+1 < len(s); i += 2 {
		out = append(out, merge(s[i], s[i+1]))
	}
	if len(s)%2 == 1 {
		out = append(out, s[len(s)-1])
	}
	return out
}

// Series is a bounded series of intervals of one width (AppendBounded)
// whose partial first and last intervals are folded into their neighbour
// when measure.Folds says they are too short for a rate of their own: a
// short first one into the next, a short last one into the one before.
// Counts stay exact; only the neighbour grows longer.
type Series[T any] struct {
	Items []T
	Merge func(a, b T) T
	// foldNext: the first interval was short, the next one takes it in.
	foldNext bool
}

// Add appends v, an interval of the given length ending the series when
// final, and reports whether it was folded into a neighbour (or will be,
// for a short first one).
func (s *Series[T]) Add(v T, length, width time.Duration, final bool) (folded bool) {
	short := measure.Folds(length, width)
	switch {
	case s.foldNext:
		s.foldNext = false
		last := len(s.Items) - 1
		s.Items[last] = s.Merge(s.Items[last], v)
		return final && short
	case final && short && len(s.Items) > 0:
		last := len(s.Items) - 1
		s.Items[last] = s.Merge(s.Items[last], v)
		return true
	}
	s.Items = AppendBounded(s.Items, v, s.Merge)
	if short && !final && len(s.Items) == 1 {
		s.foldNext = true
		return true
	}
	return false
}

// MergeIntervals joins two consecutive producer intervals: counts and sums
// add up, maxima stay maxima. The joined percentiles are the larger of the
// two (an upper bound: the intervals' histograms are not kept).
func MergeIntervals(a, b measure.Interval) measure.Interval {
	m := b
	m.Length = a.Length + b.Length
	m.Count += a.Count
	m.Bytes += a.Bytes
	m.FailedIn += a.FailedIn
	m.Delay.Merge(a.Delay)
	m.DelayHistogram = mergeHistograms(a.DelayHistogram, b.DelayHistogram)
	m.LatencyHistogram = mergeHistograms(a.LatencyHistogram, b.LatencyHistogram)
	m.Series = mergeSeries(a.Series, b.Series)
	m.LatSumUs += a.LatSumUs
	m.LatCount += a.LatCount
	m.LatMaxUs = max(a.LatMaxUs, b.LatMaxUs)
	m.P50Us, m.P99Us, m.P999Us = max(a.P50Us, b.P50Us), max(a.P99Us, b.P99Us), max(a.P999Us, b.P999Us)
	// Steady marks an interval that ends after steady state began: the
	// joined one ends where b does.
	m.Steady = b.Steady
	m.Buckets = nil
	return m
}

// MergeConsumerIntervals joins two consecutive consumer intervals.
func MergeConsumerIntervals(a, b measure.ConsumerInterval) measure.ConsumerInterval {
	m := b
	m.Start = a.Start
	m.Records += a.Records
	m.Bytes += a.Bytes
	m.Rebalance += a.Rebalance
	m.LatSumUs += a.LatSumUs
	m.LatencyCount += a.LatencyCount
	m.LatMaxUs = max(a.LatMaxUs, b.LatMaxUs)
	m.Histogram = mergeHistograms(a.Histogram, b.Histogram)
	m.Series = mergeSeries(a.Series, b.Series)
	return m
}

// MergeLag keeps the larger lag of two samples, at the later time.
func MergeLag(a, b measure.LagSample) measure.LagSample {
	return measure.LagSample{Elapsed: b.Elapsed, Records: max(a.Records, b.Records)}
}
