package measure

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// intervalSigFigs is coarser than a run's histogram: percentiles over time
// are read off a chart, where 1% is invisible, and a 2-digit histogram is
// cheap to reset every interval.
const intervalSigFigs = 2

// IntervalHistogram holds the latencies of the current reporting interval,
// shared by a workload's clients: each adds a batch now and then (one lock
// per batch, not per record) and the reporter takes the percentiles once per
// interval, which starts the next.
type IntervalHistogram struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

// NewIntervalHistogram returns an empty interval histogram.
func NewIntervalHistogram() *IntervalHistogram {
	return &IntervalHistogram{h: hdrhistogram.New(1, MaxLatencyMicros, intervalSigFigs)}
}

// RecordAll adds latencies in microseconds; negative ones are left out and
// those above MaxLatencyMicros count as it, as in Histogram.
func (ih *IntervalHistogram) RecordAll(us []int64) {
	if len(us) == 0 {
		return
	}
	ih.mu.Lock()
	for _, v := range us {
		if v < 0 {
			continue
		}
		_ = ih.h.RecordValue(min(max(v, 1), MaxLatencyMicros))
	}
	ih.mu.Unlock()
}

// Take returns the interval's percentiles (q in 0..100) in microseconds
// and empties the histogram. An empty interval gives zeros.
func (ih *IntervalHistogram) Take(qs ...float64) []int64 {
	out := make([]int64, len(qs))
	ih.mu.Lock()
	defer ih.mu.Unlock()
	if ih.h.TotalCount() == 0 {
		return out
	}
	for i, q := range qs {
		out[i] = ih.h.ValueAtQuantile(q)
	}
	ih.h.Reset()
	return out
}
