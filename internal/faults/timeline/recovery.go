package timeline

import (
	"context"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// The recovery measurement: after an action brings a broker back, how long
// until every in-sync replica set is full again.

// measureISR polls metadata until every partition's ISR holds all its
// replicas and has held them for Settle: the time is from began to when
// they last became full. Regression: a partition's heal read "every
// in-sync replica set is full after 15ms" because the controller had not
// fenced the broker yet; it did 0.5 s later, the ISR shrank, and was full
// again 6.7 s after the heal. A fencing already under way comes within the
// settle, and the watch goes on past it.
func (t *Timeline) measureISR(ctx context.Context, i int, began time.Time) {
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	full := time.Duration(-1) // when the ISRs last became full, since began; -1: not full
	shrank := false           // they were full once and shrank again
	done := func(d time.Duration) {
		t.set(i, func(r *Result) { r.ISRRecovered = &d })
		again := ""
		if shrank {
			again = " (they shrank again after the heal first looked complete: the controller fenced the broker late)"
		}
		t.cfg.Logf("fault %s: every in-sync replica set is full after %s%s", t.label(i), d.Round(time.Millisecond), again)
	}
	for {
		if m, err := t.metadata(ctx); err == nil {
			switch now := time.Since(began); {
			case isrFull(m) && full < 0:
				full = now
			case !isrFull(m) && full >= 0:
				full, shrank = -1, true
			}
			if full >= 0 && time.Since(began)-full >= t.cfg.Settle {
				done(full)
				return
			}
		}
		select {
		case <-ctx.Done():
			if full >= 0 { // full when measuring ended, if not for the whole settle
				done(full)
				return
			}
			d := time.Since(began)
			t.set(i, func(r *Result) { r.ISRRecoveredTimedOut, r.ISRNote = true, "not within "+seconds(d) })
			return
		case <-tick.C:
		}
	}
}

func isrFull(m kadm.Metadata) bool {
	if len(m.Topics) == 0 {
		return false
	}
	for _, td := range m.Topics {
		if td.Err != nil || len(td.Partitions) == 0 {
			return false
		}
		for _, pd := range td.Partitions {
			if pd.Err != nil || len(pd.ISR) < len(pd.Replicas) {
				return false
			}
		}
	}
	return true
}

// measureShrink polls metadata, for fault i on broker, until a partition
// broker replicates has dropped it from its in-sync replica set (the
// controller fenced it, or its leader gave up on it), or the timeline
// ends: a fault that never shrinks an ISR (a small delay) must not hold
// the run for MeasureFor.
func (t *Timeline) measureShrink(ctx context.Context, i int, broker int32, began time.Time, healed <-chan struct{}) {
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		if m, err := t.metadata(ctx); err == nil && outOfISR(m, broker) {
			d := time.Since(began)
			t.set(i, func(r *Result) { r.ISRShrunk = &d })
			t.cfg.Logf("fault %s: broker %d left an in-sync replica set after %s", t.label(i), broker, d.Round(time.Millisecond))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.stop:
			return
		case <-healed:
			return
		case <-tick.C:
		}
	}
}

// outOfISR reports whether a partition that has broker as a replica lacks
// it in its ISR.
func outOfISR(m kadm.Metadata, broker int32) bool {
	for _, td := range m.Topics {
		for _, pd := range td.Partitions {
			if slices.Contains(pd.Replicas, broker) && !slices.Contains(pd.ISR, broker) {
				return true
			}
		}
	}
	return false
}
