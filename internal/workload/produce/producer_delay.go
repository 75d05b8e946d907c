package produce

import (
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
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
	window          measure.Window       // published, taken by the reporter
	iv              *engine.IntervalHist // the workload's, shared by its clients

	// The same records' latency from their actual send (the latency less
	// its delay): what the Apache tool's lines mean by latency, where
	// kbench's latency counts from the intended send time. By interval
	// (all and steady ones, for the Apache lines) and for the run's
	// histograms.
	sent, steadySent             measure.WindowStats
	sentUs, steadySentUs         []int64
	sentWindow, steadySentWindow measure.Window
}

// newSendDelays returns the delays of a client sharing iv; nil (nothing
// measured) when the client has no schedule.
func newSendDelays(iv *engine.IntervalHist) *sendDelays {
	return &sendDelays{iv: iv, pendingUs: make([]int64, 0, publishEvery), sentUs: make([]int64, 0, publishEvery)}
}

// add records an acknowledged record's delay and its latency from the
// intended send (lat, µs); steady when it counts in steady state. Promise
// worker only.
func (d *sendDelays) add(late time.Duration, lat int64, steady bool) {
	us := late.Microseconds()
	d.pendingUs = append(d.pendingUs, us)
	fromSend := max(lat-us, 0)
	d.sentUs = append(d.sentUs, fromSend)
	addLatency(&d.sent, fromSend)
	if steady {
		d.pendingSteadyUs = append(d.pendingSteadyUs, us)
		d.steadySentUs = append(d.steadySentUs, fromSend)
		addLatency(&d.steadySent, fromSend)
	}
	addLatency(&d.pending, us)
}

// addLatency counts one value into s's count and latency sums.
func addLatency(s *measure.WindowStats, us int64) {
	s.Count++
	s.LatCount++
	s.LatSumUs += us
	s.LatMaxUs = max(s.LatMaxUs, us)
}

// publish hands what was recorded since the last publish to the reporter.
func (d *sendDelays) publish() {
	d.window.AddStats(d.pending)
	d.sentWindow.AddStats(d.sent)
	d.steadySentWindow.AddStats(d.steadySent)
	d.iv.RecordAll(d.pendingUs)
	d.pending, d.pendingUs, d.pendingSteadyUs = measure.WindowStats{}, d.pendingUs[:0], d.pendingSteadyUs[:0]
	d.sent, d.steadySent = measure.WindowStats{}, measure.WindowStats{}
	d.sentUs, d.steadySentUs = d.sentUs[:0], d.steadySentUs[:0]
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
func (c *producerClient) onSchedule(b *load.Balance, start time.Time, delayHist *engine.IntervalHist) {
	if b != nil {
		c.pacer, c.balance = load.NewBalancedPacer(b, start), b
	}
	if !c.pacer.Unlimited() && !c.closed {
		c.delays = newSendDelays(delayHist)
	}
}
