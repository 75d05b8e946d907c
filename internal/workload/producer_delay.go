package workload

import (
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
)

// sendDelays measure, on a schedule, how long after its intended send
// time each acknowledged record was handed to franz-go (slot.late): OMB's
// publish delay. The promise worker records them with the latency; the
// interval's share reaches the reporter as the latency's does, in the
// client's window and the workload's interval histogram, at each publish.
type sendDelays struct {
	pending   measure.WindowStats // not yet published (sum, max, count)
	pendingUs []int64             // their values, for iv and the run's histograms
	// pendingSteadyUs are the steady ones among them.
	pendingSteadyUs []int64
	window          measure.Window // published, taken by the reporter
	iv              *intervalHist  // the workload's, shared by its clients
}

// newSendDelays returns the delays of a client sharing iv; nil (nothing
// measured) when the client has no schedule.
func newSendDelays(iv *intervalHist) *sendDelays {
	return &sendDelays{iv: iv, pendingUs: make([]int64, 0, publishEvery)}
}

// add records an acknowledged record's delay; steady when it counts in
// steady state. Promise worker only.
func (d *sendDelays) add(late time.Duration, steady bool) {
	us := late.Microseconds()
	d.pendingUs = append(d.pendingUs, us)
	if steady {
		d.pendingSteadyUs = append(d.pendingSteadyUs, us)
	}
	d.pending.Count++
	d.pending.LatCount++
	d.pending.LatSumUs += us
	d.pending.LatMaxUs = max(d.pending.LatMaxUs, us)
}

// publish hands what was recorded since the last publish to the reporter.
func (d *sendDelays) publish() {
	d.window.AddStats(d.pending)
	d.iv.recordAll(d.pendingUs)
	d.pending, d.pendingUs, d.pendingSteadyUs = measure.WindowStats{}, d.pendingUs[:0], d.pendingSteadyUs[:0]
}

// mergeDelays adds a client's delays into the run's totals (nil: none).
func mergeDelays(into **measure.Histogram, h *measure.Histogram) {
	if h == nil {
		return
	}
	if *into == nil {
		*into = measure.NewHistogram()
	}
	(*into).Merge(h)
}

// onSchedule sets a client started at start on a balanced-rate search's
// schedule (b, when set), and measures its send delays when it has a
// schedule at all (delayHist: the workload's, nil when its intervals keep
// no histograms).
func (c *producerClient) onSchedule(b *load.Balance, start time.Time, delayHist *intervalHist) {
	if b != nil {
		c.pacer, c.balance = load.NewBalancedPacer(b, start), b
	}
	if !c.pacer.Unlimited() && !c.closed {
		c.delays = newSendDelays(delayHist)
	}
}
