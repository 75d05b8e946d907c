package measure

import "time"

// Ticker marks the ends of fixed-width intervals on one clock, so that
// every workload of a scenario cuts its series at the same instants:
// interval k covers [epoch + k·width, epoch + (k+1)·width). It is the one
// interval clock of the producing and consuming engines.
//
// Like time.Ticker it drops ticks a slow receiver missed: after each tick,
// Next arms the first boundary after the tick's time, so a reporter that
// did not run for a while (kbench stopped, an overloaded host) takes one
// long interval rather than a burst of empty ones.
type Ticker struct {
	anchor time.Time // a boundary: every other is anchor ± k·width
	width  time.Duration
	timer  *time.Timer
}

// NewTicker starts a ticker for a series that begins at start. Its first
// tick is the first epoch boundary after start; without an epoch (zero),
// or with one after start, it is start + width.
func NewTicker(epoch, start time.Time, width time.Duration) *Ticker {
	first := FirstTick(epoch, start, width)
	return &Ticker{anchor: start.Add(first), width: width, timer: time.NewTimer(first)}
}

// FirstTick is how long after start the first interval of a series ends
// (see NewTicker).
func FirstTick(epoch, start time.Time, width time.Duration) time.Duration {
	if !epoch.IsZero() {
		if since := start.Sub(epoch); since >= 0 {
			return width - since%width
		}
	}
	return width
}

// C delivers the tick: the time it fired.
func (t *Ticker) C() <-chan time.Time { return t.timer.C }

// Next arms the ticker for the first boundary after now (the time of the
// tick just received).
func (t *Ticker) Next(now time.Time) {
	k := now.Sub(t.anchor)/t.width + 1
	t.timer.Reset(t.anchor.Add(k * t.width).Sub(now))
}

// Stop stops the ticker; no tick is delivered after it returns.
func (t *Ticker) Stop() { t.timer.Stop() }
