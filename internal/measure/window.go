package measure

import "sync/atomic"

// Window counts what completed during one reporting interval. One goroutine
// adds (a client's promise or poll loop) while another takes the totals each
// interval, with atomics only: the hot path takes no lock.
type Window struct {
	count    atomic.Int64
	bytes    atomic.Int64
	latSumUs atomic.Int64
	latMaxUs atomic.Int64
	latCount atomic.Int64
}

// WindowStats is what a Window held when it was taken.
type WindowStats struct {
	Count    int64
	Bytes    int64
	LatSumUs int64
	LatMaxUs int64
	// LatCount is how many records the latency sums cover: all of them for
	// a producer, those with a measurable latency for a consumer.
	LatCount int64
}

// AvgLatencyMicros is the mean latency of the interval (0 when empty).
func (s WindowStats) AvgLatencyMicros() float64 {
	if s.LatCount == 0 {
		return 0
	}
	return float64(s.LatSumUs) / float64(s.LatCount)
}

// AddStats counts records. Writers accumulate locally and publish now and
// then, to spare the hot path five locked instructions per record.
func (w *Window) AddStats(s WindowStats) {
	w.count.Add(s.Count)
	w.bytes.Add(s.Bytes)
	w.latSumUs.Add(s.LatSumUs)
	w.latCount.Add(s.LatCount)
	for {
		cur := w.latMaxUs.Load()
		if s.LatMaxUs <= cur || w.latMaxUs.CompareAndSwap(cur, s.LatMaxUs) {
			return
		}
	}
}

// Take returns the counts so far and starts a new interval. A record that
// completes while Take runs may be split across two intervals (its count in
// one, its latency in the next); totals over the run stay exact.
func (w *Window) Take() WindowStats {
	return WindowStats{
		Count:    w.count.Swap(0),
		Bytes:    w.bytes.Swap(0),
		LatSumUs: w.latSumUs.Swap(0),
		LatMaxUs: w.latMaxUs.Swap(0),
		LatCount: w.latCount.Swap(0),
	}
}

// Merge adds o into s, for combining the windows of several clients.
func (s *WindowStats) Merge(o WindowStats) {
	s.Count += o.Count
	s.Bytes += o.Bytes
	s.LatSumUs += o.LatSumUs
	s.LatCount += o.LatCount
	if o.LatMaxUs > s.LatMaxUs {
		s.LatMaxUs = o.LatMaxUs
	}
}
