package load

import "time"

// rateController is OMB's RateController (benchmark-framework,
// RateController.java) with its default limits: each control period it
// sees the rate it had set, the period's length and the totals
// acknowledged and received so far, and returns the next rate.
//
//   - A receive backlog (acknowledged − received, totals) over 1000: the
//     consumers fall behind; the rate becomes the lower of what was
//     received over the period and what was due less the backlog, and
//     the ramping factor halves (down to 0.01).
//   - Else a publish backlog (due − acknowledged over the period) over
//     1000: the producers fall behind; the same with what was
//     acknowledged.
//   - Else the rate grows by its ramping factor, which doubles (up to 1).
//
// OMB counts received records over every subscription against records
// acknowledged once, as here.
type rateController struct {
	publishBacklogLimit, receiveBacklogLimit int64
	minRamping, maxRamping, ramping          float64
	prevPublished, prevReceived              int64
}

func newRateController() rateController {
	return rateController{publishBacklogLimit: 1000, receiveBacklogLimit: 1000, minRamping: 0.01, maxRamping: 1, ramping: 1}
}

func (c *rateController) nextRate(rate float64, period time.Duration, totalPublished, totalReceived int64) float64 {
	periodNanos := period.Nanoseconds()
	expected := int64(rate / 1e9 * float64(periodNanos))
	published := totalPublished - c.prevPublished
	received := totalReceived - c.prevReceived
	c.prevPublished, c.prevReceived = totalPublished, totalReceived

	if receiveBacklog := totalPublished - totalReceived; receiveBacklog > c.receiveBacklogLimit {
		return c.down(periodNanos, received, expected, receiveBacklog)
	}
	if publishBacklog := expected - published; publishBacklog > c.publishBacklogLimit {
		return c.down(periodNanos, published, expected, publishBacklog)
	}
	c.ramping = min(c.maxRamping, c.ramping*2)
	return rate + rate*c.ramping
}

func (c *rateController) down(periodNanos, actual, expected, backlog int64) float64 {
	c.ramping = max(c.minRamping, c.ramping/2)
	nextExpected := max(0, expected-backlog)
	return min(perSecond(actual, periodNanos), perSecond(nextExpected, periodNanos))
}

func perSecond(n, periodNanos int64) float64 {
	return float64(n) / float64(periodNanos) * 1e9
}
