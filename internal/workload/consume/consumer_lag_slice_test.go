package consume

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSlicedGroupLag guards a distributed run's consumer lag: each worker
// said "lag 77.2k" after its group had read 120,000 of 120,000, counting
// the partitions its consumer did not own from their log start, and the
// merged result carried worker 0's such series. A worker's live lag now
// covers its own partitions, and worker 0's slice (the one holding client
// 0) records the group's, the others' partitions at the group's committed
// offsets.
func TestSlicedGroupLag(t *testing.T) {
	t.Parallel()
	const n = 4000
	addrs := consFakeCluster(t, "lagged", 4, n)
	opts := consFakeOpts(addrs)
	ctx := context.Background()
	var live [2]atomic.Int64
	runs := make([]*ConsumerRun, 2)
	for i := range runs {
		spec := ConsumerSpec{Topics: []string{"lagged"}, Group: "lagged-g", Clients: 1, Slice: engine.ClientSlice{First: i, All: 2},
			Lag: true, Interval: 200 * time.Millisecond, Duration: 3 * time.Second,
			ClientOpts: func(c int) []kgo.Opt { return append(opts(c), kgo.AutoCommitInterval(100*time.Millisecond)) },
			OnLag:      func(s measure.LagSample) { live[i].Store(s.Records) }}
		run, err := StartConsumer(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = run
	}
	results := make([]*ConsumerResult, 2)
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := run.Wait()
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	if read := results[0].Records + results[1].Records; read != n {
		t.Fatalf("the group read %d records, want %d", read, n)
	}
	for i := range runs {
		if got := live[i].Load(); got != 0 {
			t.Errorf("worker %d's last live lag is %d after its group read every record: it counted the other worker's partitions", i, got)
		}
	}
	lag := results[0].Lag
	if len(lag) == 0 || lag[len(lag)-1].Records != 0 {
		t.Errorf("worker 0's recorded lag %v: want the group's, 0 at the end", lag)
	}
}
