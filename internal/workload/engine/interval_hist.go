package engine

import (
	"sync"

	"github.com/kbench/kbench/internal/measure"
)

// IntervalHist holds one interval's values of a latency (µs) that the
// result keeps per interval (the producers' publish latency and send
// delay, the consumers' end-to-end latency): clients add a batch at a time
// (one lock per batch), the reporter takes it once per interval. Every run
// keeps the compact series histogram (measure.SeriesHistogram, with the
// exact count, sum, min and max), which merges exactly across clients,
// repeats and workers; with full, also a measure.Histogram at 3
// significant digits, encoded: OMB's per-period quantiles need that
// precision, and it is about six times the size.
type IntervalHist struct {
	mu sync.Mutex
	s  *measure.SeriesHistogram
	h  *measure.Histogram // nil unless full
}

func NewIntervalHist(full bool) *IntervalHist {
	ih := &IntervalHist{s: measure.NewSeriesHistogram()}
	if full {
		ih.h = measure.NewHistogram()
	}
	return ih
}

// RecordAll adds a batch of values (none to a nil one: a series without
// histograms).
func (ih *IntervalHist) RecordAll(us []int64) {
	if ih == nil || len(us) == 0 {
		return
	}
	ih.mu.Lock()
	for _, v := range us {
		ih.s.Record(v)
		if ih.h != nil {
			ih.h.Record(v)
		}
	}
	ih.mu.Unlock()
}

// Take empties the histograms and returns what they held: the series
// histogram (nil when nothing, or for a nil one) and the full one encoded
// ("" when nothing or not kept).
func (ih *IntervalHist) Take() (*measure.SeriesHistogram, string) {
	if ih == nil {
		return nil, ""
	}
	ih.mu.Lock()
	defer ih.mu.Unlock()
	if ih.s.Count() == 0 {
		return nil, ""
	}
	s := ih.s
	s.Compact() // kept for the run
	ih.s = measure.NewSeriesHistogram()
	if ih.h == nil || ih.h.Count() == 0 {
		return s, ""
	}
	// Encoding a histogram of measure's own range cannot fail; were it
	// to, the interval keeps its exact mean and maximum only.
	enc, _ := ih.h.Encode()
	ih.h.Reset()
	return s, enc
}

// mergeSeries adds two intervals' series histograms together, in a new one
// (the intervals' own may still be read).
func mergeSeries(a, b *measure.SeriesHistogram) *measure.SeriesHistogram {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	m := measure.NewSeriesHistogram()
	m.Merge(a)
	m.Merge(b)
	return m
}

// mergeHistograms adds two intervals' encoded histograms together; one
// that does not decode (never, for what take wrote) is left out.
func mergeHistograms(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	ha, err := measure.Decode(a)
	if err != nil {
		return b
	}
	hb, err := measure.Decode(b)
	if err != nil {
		return a
	}
	ha.Merge(hb)
	enc, err := ha.Encode()
	if err != nil {
		return a
	}
	return enc
}
