package summary

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestSteadyRateNeverAboveOffered guards issue 33 item 1: the steady
// window started at the warm-up's last acknowledgement, so when that came
// late the records queued behind it fell into a shortened window: 2,344
// records/s at 2,000 offered. A produce request sent during the warm-up is
// held here; the steady rate must stay at or under the rate offered, and
// the lag be said.
func TestSteadyRateNeverAboveOffered(t *testing.T) {
	t.Parallel()
	const (
		rate    = 1000.0
		holdFor = 600 * time.Millisecond
	)
	tests := []struct {
		name      string
		warmup    int64
		warmupFor time.Duration
		// wantLagMs: the lag said at least. A time warm-up's window starts
		// at its first steady record's send, the held ones, so its lag is
		// only the rest of the warm-up time.
		wantLagMs float64
		// holdAfter: the first produce request sent after this is held
		// (-1: the first of all, so every record completes after a time
		// warm-up: all steady, the window from the first send).
		holdAfter time.Duration
		linger    time.Duration
	}{
		{name: "record warm-up", warmup: 200, wantLagMs: 300, holdAfter: 150 * time.Millisecond, linger: time.Millisecond},
		{name: "time warm-up", warmupFor: 200 * time.Millisecond, holdAfter: 150 * time.Millisecond, linger: time.Millisecond},
		// 1,000 records from the first send to the last acknowledgement
		// were 999 send intervals: 1,000.3 records/s at 1,000 offered.
		{name: "every record steady", warmupFor: 200 * time.Millisecond, holdAfter: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
			if err != nil {
				t.Fatal(err)
			}
			hold := kfakehold.New(t, c)
			var began atomic.Int64 // when the run started, Unix ns
			var held atomic.Bool
			c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
				// Hold the first produce request sent late in the warm-up
				// (records due 150-200 ms): the warm-up's last record is
				// acknowledged about 600 ms late, and the records behind
				// it queue. Or the very first request (holdAfter -1).
				if b := began.Load(); b > 0 && time.Since(time.Unix(0, b)) > tt.holdAfter && held.CompareAndSwap(false, true) {
					hold.For(holdFor)
				}
				return nil, nil, false
			})
			seeds := c.ListenAddrs()
			spec := produce.ProducerSpec{Topic: "t", Values: values(t), Interval: 50 * time.Millisecond,
				ClientOpts: func(int) []kgo.Opt {
					return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(tt.linger)}
				}}
			spec.Records, spec.Rate, spec.Warmup, spec.WarmupDuration = 1000, rate, tt.warmup, tt.warmupFor
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			began.Store(time.Now().UnixNano())
			res, err := produce.RunProducer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if !held.Load() {
				t.Fatal("no produce request was held")
			}
			sum, err := Producer(res, 1000, 0)
			if err != nil {
				t.Fatal(err)
			}
			st := sum.SteadyState
			if st == nil {
				t.Fatal("no steady state")
			}
			if st.RecordsPerSec > rate {
				t.Errorf("steady state %.1f records/s (%d records over %.3f s) at %.0f offered", st.RecordsPerSec, st.Records, st.DurationSeconds, rate)
			}
			if st.WarmupAckLagMs < tt.wantLagMs {
				t.Errorf("acknowledgements lagged %.0f ms, want the held request's lag said", st.WarmupAckLagMs)
			}
		})
	}
}
