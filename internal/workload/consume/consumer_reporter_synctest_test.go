package consume

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// TestReporterAlignsIntervalsOnTheEpoch: the consumer's interval series
// is aligned (as the producer's: produce's test of the same name) on the scenario's clock (the epoch): every
// interval but the last ends on epoch + k·interval, with no gap, and the
// first runs from the start to the next such boundary (folded into its
// neighbour when shorter than half an interval). Regression: this was
// checked against wall time in a kfake run (TestRunProducerSeriesCountsEveryRecord,
// a 35 ms bound) and failed on a loaded machine ("first interval 50.97ms:
// not aligned on the epoch"); in a synctest bubble the clock is exact.
func TestConsumerReporterAlignsIntervalsOnTheEpoch(t *testing.T) {
	t.Parallel()
	const w = 50 * time.Millisecond
	tests := []struct {
		name   string
		before time.Duration // the epoch is this long before the start; -1: no epoch
		first  time.Duration // the first interval's length
	}{
		{"epoch a little earlier", 30 * time.Millisecond, 20 * time.Millisecond}, // folded: under half
		{"epoch earlier by most of an interval", 10 * time.Millisecond, 40 * time.Millisecond},
		{"epoch intervals earlier", 3*w + 5*time.Millisecond, 45 * time.Millisecond},
		{"epoch on the grid", 2 * w, w},
		{"epoch at the start", 0, w},
		{"no epoch", -1, w},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				epoch := start // the grid without an epoch: the start
				spec := ConsumerSpec{Interval: w}
				if tt.before >= 0 {
					epoch = start.Add(-tt.before)
					spec.Epoch = epoch
				}
				cc := &Client{}
				cr := &ConsumerRun{spec: spec, start: start, clients: []*Client{cc}}
				crep := newConsumerReporter(cr)

				ctx, cancel := context.WithCancel(t.Context())
				crepDone := make(chan struct{})
				go func() { defer close(crepDone); crep.run(ctx) }()
				// One record every 7 ms, off the grid, for 260 ms.
				const records = 37
				for range records {
					time.Sleep(7 * time.Millisecond)
					cc.window.AddStats(measure.WindowStats{Count: 1})
				}
				time.Sleep(time.Millisecond) // the run ends at 260 ms
				end := time.Now()
				cancel()
				<-crepDone
				crep.final(end)

				var cons []span
				var consSum int64
				for _, iv := range crep.intervals {
					cons = append(cons, span{iv.Start, iv.End, iv.Final})
					consSum += iv.Records
				}
				checkGrid(t, "consumer", cons, start, end, epoch, w)
				if consSum != records {
					t.Errorf("series count %d records of %d", consSum, records)
				}
			})
		})
	}
}

// span is one interval of a series, on the wall clock.
type span struct {
	from, to time.Time
	final    bool
}

// checkGrid checks that a series covers start to end without a gap, its
// intervals but the final one ending on epoch + k·w.
func checkGrid(t *testing.T, who string, s []span, start, end, epoch time.Time, w time.Duration) {
	t.Helper()
	if len(s) == 0 || !s[0].from.Equal(start) || !s[len(s)-1].to.Equal(end) || !s[len(s)-1].final {
		t.Errorf("%s: series %v does not run from the start %v to the final end %v", who, s, start, end)
		return
	}
	for i, iv := range s {
		if i > 0 && !iv.from.Equal(s[i-1].to) {
			t.Errorf("%s: interval %d starts at %v, the one before ended at %v", who, i, iv.from.Sub(start), s[i-1].to.Sub(start))
		}
		if !iv.final && iv.to.Sub(epoch)%w != 0 {
			t.Errorf("%s: interval %d ends %v after the epoch: not on its %v grid", who, i, iv.to.Sub(epoch), w)
		}
	}
}
