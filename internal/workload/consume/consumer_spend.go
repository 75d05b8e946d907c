package consume

import "time"

// maxProcessingCredit bounds how far a reader's processing clock may lag
// behind the wall clock and still be caught up: a timer that woke late
// shortens the next records' waits, but a reader that was idle longer
// (waiting for records) starts afresh.
const maxProcessingCredit = 50 * time.Millisecond

// spend takes d of processing time on the reader's own clock: it sleeps
// until the clock's new end, so that records of 1 ms take 1 ms each on
// average even where a timer wakes late (a loaded machine oversleeps a
// 1 ms timer by more than the record's time).
func (c *Client) spend(d time.Duration) {
	now := time.Now()
	if c.procAt.Before(now.Add(-maxProcessingCredit)) {
		c.procAt = now
	}
	c.procAt = c.procAt.Add(d)
	wait := c.procAt.Sub(now)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.cr.runCtx.Done():
	}
}
