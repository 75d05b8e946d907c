package workload

import (
	"sync"

	"github.com/kbench/kbench/internal/measure"
)

// runHists are a producing run's latency and send-delay histograms, shared
// by its clients. Each client recorded into four of its own (188 KB each at
// one hour and 3 digits), so that 1,000 clients held 750 MB of histograms;
// now each keeps the values that completed since its last publish (at
// most publishEvery, or publishAfter's worth) and adds them here under mu
// when it publishes, as it does to the interval histograms.
type runHists struct {
	mu sync.Mutex
	// lat holds every acknowledged record's latency, steady those of
	// steady state (nil without a warm-up); delay and steadyDelay the send
	// delays (nil when no client has a schedule).
	lat, steady        *measure.Histogram
	delay, steadyDelay *measure.Histogram
}

func newRunHists(warm, delays bool) *runHists {
	h := &runHists{lat: measure.NewHistogram()}
	if warm {
		h.steady = measure.NewHistogram()
	}
	if delays {
		h.delay = measure.NewHistogram()
		if warm {
			h.steadyDelay = measure.NewHistogram()
		}
	}
	return h
}

// add records a client's values since its last publish: latencies, the
// steady ones among them, send delays and the steady ones among them.
func (h *runHists) add(lat, steady, delay, steadyDelay []int64) {
	if len(lat) == 0 && len(delay) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	recordAll(h.lat, lat)
	recordAll(h.steady, steady)
	recordAll(h.delay, delay)
	recordAll(h.steadyDelay, steadyDelay)
}

func recordAll(h *measure.Histogram, us []int64) {
	if h == nil {
		return
	}
	for _, v := range us {
		h.Record(v)
	}
}

// flushHists adds what the client completed since its last publish to the
// run's histograms: at each publish, and for a client the run abandoned
// (no promise is inside any more) what it had not published.
func (c *producerClient) flushHists() {
	var delay, steadyDelay []int64
	if c.delays != nil {
		delay, steadyDelay = c.delays.pendingUs, c.delays.pendingSteadyUs
	}
	c.hists.add(c.pendingLats, c.pendingSteady, delay, steadyDelay)
}
