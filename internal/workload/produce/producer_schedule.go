package produce

import (
	"context"
	"math"
	"time"
)

// waitDue waits until record i is due on the schedule moved on by
// kbench's pauses; false when sending ends first. A timed run sends the
// records due before its end that the sender reaches before it: the
// record due exactly at the end is not sent (nor any after it), and a
// sender behind its schedule when the duration ends (kbench slow or
// paused) leaves the rest unsent, counted in NotSent, rather than run
// past the duration to catch up.
func (c *producerClient) waitDue(sendCtx context.Context, i int64) bool {
	for {
		now := time.Since(c.start)
		if c.pauses != nil {
			c.shift = max(c.shift, c.pauses.Paused(c.start.Add(now)))
		}
		due := c.pacer.Due(i)
		if due < math.MaxInt64-c.shift { // past the last stage: never due
			due += c.shift
		}
		if c.sendFor > 0 && (due >= c.sendFor || c.dueCap >= 0 && i >= c.dueCap) {
			<-sendCtx.Done()
			return false
		}
		if due-now < minPacerSleep {
			return true // due, or within the pacer's burst
		}
		if err := c.pacer.Wait(sendCtx, i, now-c.shift); err != nil {
			return false
		}
		// Slept: look again, kbench may have paused meanwhile.
	}
}

// minPacerSleep is load.Pacer's burst: records due within it go at once.
const minPacerSleep = time.Millisecond

// sendIntervalEnd is where the send interval of the client's record i,
// intended at due, ends: at a fixed rate, its next record's intended send,
// as a run of d at rate r sends the r·d records due before d, each owning
// the interval up to the next; due itself at an unlimited rate, for a
// virtual user, and for the last record of the stages. The steady window
// reaches the end of its last record's interval: n records sent from the
// window's start to its last send span n-1 intervals, and divided by that
// time gave 1,000.3 records/s at 1,000 offered.
func (c *producerClient) sendIntervalEnd(i int64, due time.Duration) time.Duration {
	if c.closed || c.pacer.Unlimited() {
		return due
	}
	next := c.pacer.Due(i + 1)
	if next == math.MaxInt64 { // past the last stage: the run's end bounds it
		return due
	}
	return due + max(next-c.pacer.Due(i), 0)
}
