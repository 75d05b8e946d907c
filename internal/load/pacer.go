// Package load decides when each record is due. Pacer is the open model: at
// a fixed rate every record has an intended send time, fixed before the run
// starts, so a stalled broker delays the records behind it and the delay
// shows up in their latency (no coordinated omission).
package load

import (
	"context"
	"math"
	"time"
)

// minSleep is the smallest lag worth sleeping for. Sleeping per record at
// high rates would cost more than the records; instead the producer runs
// ahead in bursts of at most this much and then sleeps once.
const minSleep = time.Millisecond

// Pacer spaces records evenly at a fixed rate.
type Pacer struct {
	perRecord float64   // nanoseconds between intended send times; 0 = unlimited
	sched     *schedule // ramping stages, instead of a fixed rate
	bal       *balanced // a Balance's share, instead of a fixed rate
}

// NewPacer returns a pacer for rate records per second. A rate of 0 or less
// means unlimited: every record is due at once.
func NewPacer(rate float64) Pacer {
	if rate <= 0 {
		return Pacer{}
	}
	return Pacer{perRecord: float64(time.Second) / rate}
}

// Unlimited reports whether the pacer never waits.
func (p Pacer) Unlimited() bool { return p.perRecord == 0 && p.sched == nil && p.bal == nil }

// Due is the intended send time of record i, as an offset from the start.
func (p Pacer) Due(i int64) time.Duration {
	if p.sched != nil {
		return p.sched.due(i)
	}
	if p.bal != nil {
		return p.bal.due(i)
	}
	return time.Duration(float64(i) * p.perRecord)
}

// Wait blocks until record i is due, where elapsed is the time since the
// start. It returns ctx.Err() if ctx ends first.
func (p Pacer) Wait(ctx context.Context, i int64, elapsed time.Duration) error {
	if p.Unlimited() {
		return nil
	}
	ahead := p.Due(i) - elapsed
	if ahead < minSleep {
		return nil
	}
	t := time.NewTimer(ahead)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// DueBefore is how many records a pacer at rate has due before d: records
// 0 to n-1, the one due exactly at d excluded (a run of d at 1,000/s sends
// 1,000 records, not 1,001). It uses Due's arithmetic, so the count agrees
// with the intended send times. 0 for an unlimited rate.
func DueBefore(rate float64, d time.Duration) int64 {
	p := NewPacer(rate)
	if p.Unlimited() || d <= 0 {
		return 0
	}
	n := int64(math.Ceil(float64(d) / p.perRecord))
	for n > 0 && p.Due(n-1) >= d {
		n--
	}
	for p.Due(n) < d {
		n++
	}
	return n
}
