package workload

import (
	"sync/atomic"
	"time"
)

// warmup decides when a producer run's steady state begins, on the
// acknowledgement timeline: once the first `records` records of the run
// (over every client, failed ones included) have completed, and `until`
// after the start, whichever is later. A record that completes after that
// is steady. Deciding on completions, not sends, keeps every figure on one
// timeline: the steady window, its records and its latencies, and the
// interval series' steady marks, all begin where the warm-up's last
// acknowledgement arrived; a window starting at the send of the first
// steady record began before the warm-up's acknowledgements had arrived
// and counted the whole warm-up inside it.
//
// During the warm-up each completion is counted once on one shared atomic;
// after it, completions only read a flag.
type warmup struct {
	records int64         // 0: no record count
	until   time.Duration // 0: no time
	done    atomic.Int64  // completions counted while warming up
	// lastAt is when the records-th completion happened (ns since the
	// start, +1 so that 0 means not yet); steady is set by the first
	// steady record.
	lastAt atomic.Int64
	begun  atomic.Bool
}

func newWarmup(records int64, until time.Duration) *warmup {
	if records <= 0 && until <= 0 {
		return nil
	}
	return &warmup{records: max(records, 0), until: max(until, 0)}
}

// steady counts a record completing at now (since the start) and reports
// whether it belongs to steady state. Promise workers call it.
func (w *warmup) steady(now time.Duration) bool {
	if w.begun.Load() {
		return true
	}
	if w.records > 0 {
		n := w.done.Add(1)
		if n == w.records {
			w.lastAt.Store(int64(now) + 1)
		}
		if n <= w.records {
			return false
		}
	}
	if now < w.until {
		return false
	}
	w.begun.Store(true)
	return true
}

// at is when steady state begins, since the start: the later of `until`
// and the last warm-up completion; begun says whether that is known and
// not after now.
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
