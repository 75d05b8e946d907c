package produce

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/measure"
)

// TestIntervalsCountFailures: every record that failed is in the interval
// it failed in (OMB's publishErrorRate per period reads them), as every
// acknowledged one is, with its send delay.
func TestIntervalsCountFailures(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var n atomic.Int64
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if n.Add(1)%2 == 1 {
			return nil, nil, false // every other request is taken
		}
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = 87 // INVALID_RECORD: not retried
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	spec := testSpec(t, c.ListenAddrs(), "t")
	opts := spec.ClientOpts
	spec.ClientOpts = func(i int) []kgo.Opt { return append(opts(i), kgo.DisableIdempotentWrite()) }
	spec.Rate, spec.Duration, spec.IntervalHistograms = 2000, 600*time.Millisecond, true
	res, err := RunProducer(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var acked, failed, delays, maxDelay, inHists int64
	for _, iv := range res.Intervals {
		acked += iv.Count
		failed += iv.FailedIn
		delays += iv.Delay.LatCount
		maxDelay = max(maxDelay, iv.Delay.LatMaxUs)
		for _, enc := range []string{iv.DelayHistogram, iv.LatencyHistogram} {
			if enc == "" {
				continue
			}
			h, err := measure.Decode(enc)
			if err != nil {
				t.Fatal(err)
			}
			inHists += h.Count()
		}
	}
	if inHists != 2*res.Acked {
		t.Errorf("the intervals' delay and latency histograms hold %d values, want 2 × the %d records acknowledged", inHists, res.Acked)
	}
	if res.Failed == 0 || failed != res.Failed || acked != res.Acked {
		t.Fatalf("intervals hold %d acknowledged and %d failed; the run %d and %d (want some failed)", acked, failed, res.Acked, res.Failed)
	}
	// At a rate, every acknowledged record's send delay is in its interval.
	if res.SendDelay == nil || delays != res.Acked || res.SendDelay.Count() != res.Acked || maxDelay != res.SendDelay.Max() {
		t.Fatalf("intervals hold %d send delays (max %d µs); the run %v acknowledged %d", delays, maxDelay, res.SendDelay, res.Acked)
	}
}

// TestIntervalsKeepSeriesHistograms: every run, not only OMB's, keeps each
// interval's latencies as a series histogram, and the intervals' hold
// every acknowledged record's latency once, with the run's exact min,
// max and sum between them.
func TestIntervalsKeepSeriesHistograms(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	spec := testSpec(t, c.ListenAddrs(), "t")
	spec.Clients, spec.Rate, spec.Duration = 2, 2000, 600*time.Millisecond
	res, err := RunProducer(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	all := measure.NewSeriesHistogram()
	for _, iv := range res.Intervals {
		if iv.LatencyHistogram != "" || iv.DelayHistogram != "" {
			t.Errorf("interval at %s keeps OMB's 3-digit histograms without IntervalHistograms", iv.Elapsed)
		}
		all.Merge(iv.Series)
	}
	if all.Count() != res.Acked || all.Count() != res.Latency.Count() || all.Sum() != res.Latency.Sum() || all.Min() != res.Latency.Min() || all.Max() != res.Latency.Max() {
		t.Errorf("the intervals' series hold %d latencies (sum %d, min %d, max %d); the run %d acknowledged, its latency %d/%d/%d/%d",
			all.Count(), all.Sum(), all.Min(), all.Max(), res.Acked, res.Latency.Count(), res.Latency.Sum(), res.Latency.Min(), res.Latency.Max())
	}
}
