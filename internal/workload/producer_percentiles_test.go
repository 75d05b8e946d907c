package workload

import (
	"context"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestProducerPercentilesWithinExactBounds guards issue 33 item 3 end to
// end: a producer's result, whole run, steady state and every interval,
// has no percentile past its exact min or max (interval percentiles come
// from 2-digit histograms, which reach 1% past the values recorded).
func TestProducerPercentilesWithinExactBounds(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 2)
	spec := testSpec(t, seeds, "t")
	spec.Records, spec.Rate, spec.Warmup = 2000, 4000, 200
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := res.Summary(1000, 0)
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
