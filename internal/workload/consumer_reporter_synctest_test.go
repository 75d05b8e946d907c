package workload

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
