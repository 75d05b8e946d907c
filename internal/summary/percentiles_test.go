package summary

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestProducerPercentilesWithinExactBounds guards issue 33 item 3 end to
// end: a producer's result, whole run, steady state and every interval,
// has no percentile past its exact min or max (interval percentiles come
// from 2-digit histograms, which reach 1% past the values recorded).
func TestProducerPercentilesWithinExactBounds(t *testing.T) {
	t.Parallel()
	seeds := fakeProduceCluster(t, nil)
	spec := produce.ProducerSpec{Topic: "t", Values: values(t), Interval: 50 * time.Millisecond,
		Records: 2000, Rate: 4000, Warmup: 200,
		ClientOpts: func(int) []kgo.Opt {
			return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(time.Millisecond)}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	res, err := produce.RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Producer(res, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Intervals) < 3 {
		t.Fatalf("%d intervals, want a series", len(sum.Intervals))
	}
	if err := result.CheckPercentiles(&result.Document{Producer: sum}); err != nil {
		t.Fatal(err)
	}
}
