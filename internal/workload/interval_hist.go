package workload

import (
	"sync"

	"github.com/kbench/kbench/internal/measure"
)

// intervalHist holds one interval's values of a latency (µs) that the
// result keeps per interval as a histogram (the consumers' end-to-end
// latency, the producers' send delay): clients add a batch at a time
// (one lock per batch), the reporter takes it encoded once per interval.
// It is a measure.Histogram, so intervals merge exactly and read back with
// measure.Decode.
type intervalHist struct {
	mu sync.Mutex
	h  *measure.Histogram
}

func newIntervalHist() *intervalHist { return &intervalHist{h: measure.NewHistogram()} }

// recordAll adds a batch of values (none to a nil one: a series without
// histograms).
func (ih *intervalHist) recordAll(us []int64) {
	if ih == nil || len(us) == 0 {
		return
	}
	ih.mu.Lock()
	for _, v := range us {
		ih.h.Record(v)
	}
	ih.mu.Unlock()
}

// take empties the histogram and returns what it held, encoded ("" when
// nothing, or for a nil one).
func (ih *intervalHist) take() string {
	if ih == nil {
		return ""
	}
	ih.mu.Lock()
	defer ih.mu.Unlock()
	if ih.h.Count() == 0 {
		return ""
	}
	// Encoding a histogram of measure's own range cannot fail; were it
	// to, the interval keeps its exact mean and maximum only.
	enc, _ := ih.h.Encode()
	ih.h.Reset()
	return enc
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
