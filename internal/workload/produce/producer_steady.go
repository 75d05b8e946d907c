package produce

import (
	"sync/atomic"
	"time"
)

// warmup decides when a producer run's steady state begins. Which records
// are steady is decided on the acknowledgement timeline: once the first
// `records` records of the run (over every client, failed ones included)
// have completed, and `until` after the start, whichever is later, a
// record that completes is steady. Deciding on completions, not sends,
// keeps the steady latencies free of the warm-up's acknowledgements.
//
// The steady window the rates divide by starts at the warm-up's last send
// instead (intended send at a fixed rate), or at the earliest send of a
// steady record if that is earlier (see steadyWindow): a window starting
// at the warm-up's last acknowledgement was shortened by however late that
// acknowledgement came, while the records queued behind it still counted,
// so at 2,000 records/s offered it reported 2,344/s (18,000 records over
// 7.68 s of a 10.32 s send).
//
// During the warm-up each completion is counted once on one shared atomic;
// after it, completions only read a flag.
type warmup struct {
	records int64         // 0: no record count
	until   time.Duration // 0: no time
	done    atomic.Int64  // completions counted while warming up
	// lastAt is when the records-th completion happened (ns since the
	// start, +1 so that 0 means not yet); lastSent the latest send of a
	// record that completed in the warm-up (same encoding); steady is set
	// by the first steady record.
	lastAt   atomic.Int64
	lastSent atomic.Int64
	begun    atomic.Bool
}

func newWarmup(records int64, until time.Duration) *warmup {
	if records <= 0 && until <= 0 {
		return nil
	}
	return &warmup{records: max(records, 0), until: max(until, 0)}
}

// steady counts a record sent at sent completing at now (both since the
// start) and reports whether it belongs to steady state. Promise workers
// call it.
func (w *warmup) steady(now, sent time.Duration) bool {
	if w.begun.Load() {
		return true
	}
	if w.records > 0 {
		n := w.done.Add(1)
		if n == w.records {
			w.lastAt.Store(int64(now) + 1)
		}
		if n <= w.records {
			w.sentAt(sent)
			return false
		}
	}
	if now < w.until {
		w.sentAt(sent)
		return false
	}
	w.begun.Store(true)
	return true
}

// sentAt keeps the latest send of a warm-up record.
func (w *warmup) sentAt(sent time.Duration) {
	for {
		old := w.lastSent.Load()
		if old > int64(sent) || w.lastSent.CompareAndSwap(old, int64(sent)+1) {
			return
		}
	}
}

// at is when steady state's records begin, since the start: the later of
// `until` and the last warm-up completion; begun says whether that is
// known and not after now.
func (w *warmup) at(now time.Duration) (at time.Duration, begun bool) {
	if w == nil {
		return 0, false
	}
	at = w.until
	if w.records > 0 {
		last := w.lastAt.Load()
		if last == 0 {
			return 0, false // the warm-up's records have not all completed
		}
		at = max(at, time.Duration(last-1))
	}
	return at, at <= now
}

// steadyWindow is the window steady state's rate divides by, since the
// start: from the warm-up's last send, or firstSent (the earliest send of
// a steady record; -1: none) if earlier, so that every steady record was
// sent inside it; to end, or lastEnd (the latest end of a steady record's
// send interval, sendIntervalEnd) if later. At a fixed rate each client's
// steady records own disjoint send intervals inside the window, so the
// records are at most the rate times its length and the steady rate never
// exceeds the rate offered; ending at the last steady send instead counted
// n records over n-1 intervals. ackLag is how much later than the window's
// start steady state's records began (the warm-up's last acknowledgement
// or the warm-up time).
func (w *warmup) steadyWindow(at, end, firstSent, lastEnd time.Duration) (from, to, ackLag time.Duration) {
	from = at
	if s := w.lastSent.Load(); s > 0 {
		from = min(from, time.Duration(s-1))
	}
	if firstSent >= 0 {
		from = min(from, firstSent)
	}
	return from, max(end, lastEnd), at - from
}
