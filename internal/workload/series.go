package workload

// MaxSeries bounds every series a workload keeps (producer and consumer
// intervals, lag samples): at the bound, neighbouring entries merge
// pairwise, so a day-long run keeps no more than a short one and only its
// older part gets coarser. 4096 one-second intervals are 68 minutes at full
// resolution.
const MaxSeries = 4096

// appendBounded appends v to s, halving s by merge once it holds MaxSeries
// entries.
func appendBounded[T any](s []T, v T, merge func(a, b T) T) []T {
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

// mergeIntervals joins two consecutive producer intervals: counts and sums
// add up, maxima stay maxima. The joined percentiles are the larger of the
// two (an upper bound: the intervals' histograms are not kept).
func mergeIntervals(a, b Interval) Interval {
	m := b
	m.Length = a.Length + b.Length
	m.Count += a.Count
	m.Bytes += a.Bytes
	m.LatSumUs += a.LatSumUs
	m.LatCount += a.LatCount
	m.LatMaxUs = max(a.LatMaxUs, b.LatMaxUs)
	m.P50Us, m.P99Us, m.P999Us = max(a.P50Us, b.P50Us), max(a.P99Us, b.P99Us), max(a.P999Us, b.P999Us)
	m.Steady = a.Steady && b.Steady
	m.Buckets = nil
	return m
}

// mergeConsumerIntervals joins two consecutive consumer intervals.
func mergeConsumerIntervals(a, b ConsumerInterval) ConsumerInterval {
	m := b
	m.Start = a.Start
	m.Records += a.Records
	m.Bytes += a.Bytes
	m.Rebalance += a.Rebalance
	m.LatSumUs += a.LatSumUs
	m.LatencyCount += a.LatencyCount
	m.LatMaxUs = max(a.LatMaxUs, b.LatMaxUs)
	return m
}

// mergeLag keeps the larger lag of two samples, at the later time.
func mergeLag(a, b LagSample) LagSample {
	return LagSample{Elapsed: b.Elapsed, Records: max(a.Records, b.Records)}
}
