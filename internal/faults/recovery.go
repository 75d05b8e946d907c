package faults

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// The recovery measurement: after an action brings a broker back, how long
// until every in-sync replica set is full again.

// measureISR polls metadata until every partition's ISR holds all its
// replicas.
func (t *Timeline) measureISR(ctx context.Context, i int, began time.Time) {
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		if m, err := t.metadata(ctx); err == nil && isrFull(m) {
			d := time.Since(began)
			t.set(i, func(r *Result) { r.ISRRecovered = &d })
			t.cfg.Logf("fault %s: every in-sync replica set is full after %s", t.label(i), d.Round(time.Millisecond))
			return
		}
		select {
		case <-ctx.Done():
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
