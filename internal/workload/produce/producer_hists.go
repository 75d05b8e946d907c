package produce

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
	// sent and steadySent are the latencies from the actual send (nil
	// with the delays).
	sent, steadySent *measure.Histogram
}

func newRunHists(warm, delays bool) *runHists {
	h := &runHists{lat: measure.NewHistogram()}
	if warm {
		h.steady = measure.NewHistogram()
	}
	if delays {
		h.delay, h.sent = measure.NewHistogram(), measure.NewHistogram()
		if warm {
			h.steadyDelay, h.steadySent = measure.NewHistogram(), measure.NewHistogram()
		}
	}
	return h
}

// add records a client's values since its last publish: latencies, the
// steady ones among them, and on a schedule its send delays and latencies
// from the actual send (d: nil without one).
func (h *runHists) add(lat, steady []int64, d *sendDelays) {
	if len(lat) == 0 && (d == nil || len(d.pendingUs) == 0) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	recordAll(h.lat, lat)
	recordAll(h.steady, steady)
	if d != nil {
		recordAll(h.delay, d.pendingUs)
		recordAll(h.steadyDelay, d.pendingSteadyUs)
		recordAll(h.sent, d.sentUs)
		recordAll(h.steadySent, d.steadySentUs)
	}
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
	c.hists.add(c.pendingLats, c.pendingSteady, c.delays)
}
