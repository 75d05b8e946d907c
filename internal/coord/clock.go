package coord

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kbench/kbench/internal/wallclock"
)

// Clock is a worker's clock against the reference: the broker that leads
// the control partition, whose append time every control record carries.
// A worker writes pings and reads back the time the broker gave each: the
// broker stamped it between the send and the acknowledgement, so the
// offset is the broker's time minus the midpoint, within half the round
// trip (plus half the broker's millisecond). The best of the samples (the
// shortest round trip) is kept. End-to-end latency between workers is
// only as exact as their offsets agree; publish latency is local. The
// worker's clock is wallclock.Now (a test hook can shift it).
type Clock struct {
	OffsetMs      float64 `json:"offset_ms"`      // reference minus this worker's clock
	UncertaintyMs float64 `json:"uncertainty_ms"` // ± around OffsetMs
	RoundTripMs   float64 `json:"round_trip_ms"`  // of the sample kept
	Samples       int     `json:"samples"`
}

// Local is the reference time refMs (Unix ms) on this worker's clock.
func (c Clock) Local(refMs int64) time.Time {
	return time.UnixMilli(refMs).Add(-time.Duration(c.OffsetMs * float64(time.Millisecond)))
}

// Reference is local time t on the reference clock (Unix ms).
func (c Clock) Reference(t time.Time) int64 {
	return t.UnixMilli() + int64(math.Round(c.OffsetMs))
}

// Clock is this worker's clock estimate (zero before Join measured it).
func (w *Worker) Clock() Clock {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.clock
}

// clockSamples is how many pings a worker times at join.
const clockSamples = 5

func (w *Worker) measureClock(ctx context.Context) error {
	best := Clock{UncertaintyMs: -1}
	for k := 0; k < clockSamples; k++ {
		t0 := wallclock.Now()
		sent := t0.UnixMicro()
		if err := w.send(ctx, message{Kind: kindPing, SentUs: sent}); err != nil {
			return fmt.Errorf("clock sample: %w", err)
		}
		t1 := wallclock.Now()
		var ref int64
		if err := w.wait(ctx, w.opts.LostAfter, "reading back a clock sample", func() (bool, error) {
			at, ok := w.pings[sent]
			ref = at
			return ok, nil
		}); err != nil {
			return err
		}
		rtt := float64(t1.Sub(t0).Microseconds()) / 1000
		mid := float64(t0.UnixMicro()+t1.UnixMicro()) / 2000
		c := Clock{OffsetMs: float64(ref) + 0.5 - mid, UncertaintyMs: rtt/2 + 0.5, RoundTripMs: rtt}
		if best.UncertaintyMs < 0 || c.UncertaintyMs < best.UncertaintyMs {
			best = c
		}
	}
	best.Samples = clockSamples
	w.mu.Lock()
	w.clock = best
	w.mu.Unlock()
	return nil
}
