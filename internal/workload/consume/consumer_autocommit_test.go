package consume

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A group consumer with enable.auto.commit=false (kgo.DisableAutoCommit in
// its options) starts: its admin client took the same options without the
// group and franz-go refused them ("invalid autocommit options specified
// when a group was not specified"), so every consume workload of an
// OpenMessaging Benchmark driver (enable.auto.commit=false) failed at once.
func TestStartConsumerGroupWithoutAutoCommit(t *testing.T) {
	t.Parallel()
	addrs := consFakeCluster(t, "t", 2, 200)
	base := consFakeOpts(addrs)
	spec := ConsumerSpec{
		Topics: []string{"t"}, Group: "g", Records: 200, IdleTimeout: 5 * time.Second,
		ClientOpts: func(i int) []kgo.Opt { return append(base(i), kgo.DisableAutoCommit()) },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunConsumer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 200 || res.Reason != StopRecords {
		t.Errorf("consumed %d (%s), want 200 (records)", res.Records, res.Reason)
	}
}
