package study

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestRunCatchUpRead: a consumer starting late reads the backlog from the
// start while the producer keeps writing, and says when it caught up: in
// its first partition, and in the last (regression: drain_seconds ended at
// the first partition drained, with most of the backlog still unread).
func TestRunCatchUpRead(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	popts, copts := producerOpts(t, bootstrap), consumerOpts(t, bootstrap)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc := runner.Scenario{
		Name:   "catch-up",
		Admin:  popts,
		Topics: []runner.Topic{{TopicSpec: kadmin.TopicSpec{Name: topic, Partitions: 4}, Existing: kadmin.Recreate}},
		Workloads: []runner.Workload{
			{Name: "producer", Spec: workload.Produce{Spec: produce.ProducerSpec{Topic: topic, Rate: 2000, Duration: 6 * time.Second,
				Values: values(t), ClientOpts: func(int) []kgo.Opt { return popts }, Interval: 500 * time.Millisecond}}},
			{Name: "late", StartAfter: 3 * time.Second, Spec: workload.Consume{Spec: consume.ConsumerSpec{Topics: []string{topic},
				IdleTimeout: 3 * time.Second, Latency: true, ClientOpts: func(int) []kgo.Opt { return copts }}}},
		},
	}
	out, err := runner.Run(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	prod, cons := out.Workloads[0].Publish, out.Workloads[1].Read
	if cons == nil || cons.Records != prod.Acked {
		t.Fatalf("the late consumer read %v records of %d", cons, prod.Acked)
	}
	// The backlog is what was sent more than a second (the allowed clock
	// skew) before the consumer started: the first 2 s at 2000 records/s,
	// less a little for a producer slow to start on a loaded machine.
	if cons.Backlog < 3000 || cons.CaughtUp <= 0 || cons.CaughtUp > 10*time.Second {
		t.Fatalf("backlog %d records, caught up after %v: want about the 4000 records of the first 2 s read, then caught up", cons.Backlog, cons.CaughtUp)
	}
	cu := catchUpOf(out, out.Workloads[1])
	if cu.DrainSeconds <= 0 || cu.ProducerMaxLatencyMs <= 0 {
		t.Fatalf("catch-up %+v", cu)
	}
	// Every partition caught up, the last no sooner than the first, once
	// the whole backlog was read.
	if cu.Partitions != 4 || cu.PartitionsCaughtUp != 4 || cu.LastDrainSeconds < cu.DrainSeconds || cu.LastRecords < cons.Backlog || cu.LastRecords < cu.Records {
		t.Fatalf("catch-up %+v: want all 4 partitions caught up, the last after reading the backlog of %d", cu, cons.Backlog)
	}
}

// TestRunCatchUpAfterBacklog: a consumer with a backlog size starts once
// the producers have written that much.
func TestRunCatchUpAfterBacklog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	popts, copts := producerOpts(t, bootstrap), consumerOpts(t, bootstrap)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := runner.Run(ctx, runner.Scenario{
		Name:   "backlog",
		Admin:  popts,
		Topics: []runner.Topic{{TopicSpec: kadmin.TopicSpec{Name: topic, Partitions: 1}, Existing: kadmin.Recreate}},
		Workloads: []runner.Workload{
			{Name: "producer", Spec: workload.Produce{Spec: produce.ProducerSpec{Topic: topic, Rate: 2000, Duration: 4 * time.Second,
				Values: values(t), ClientOpts: func(int) []kgo.Opt { return popts }}}},
			{Name: "late", Backlog: 200_000, Spec: workload.Consume{Spec: consume.ConsumerSpec{Topics: []string{topic},
				IdleTimeout: 3 * time.Second, Latency: true, ClientOpts: func(int) []kgo.Opt { return copts }}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cu := catchUpOf(out, out.Workloads[1])
	// 200 kB of 100-byte values is 2000 records: a second at 2000/s.
	// The consumer reads every acknowledged record, and may read records
	// still unresolved when the timed run ended: the broker wrote them,
	// their acknowledgement came after the drain's bound (on a loaded
	// machine it read 6380 of 6084 acknowledged). So the count lies
	// between acknowledged and acknowledged + unresolved, never outside.
	p, consumed := out.Workloads[0].Publish, out.Workloads[1].Read.Records
	if cu.StartedAfterSeconds < 0.8 || cu.Records < 1500 || consumed < p.Acked || consumed > p.Acked+p.Unresolved {
		t.Fatalf("catch-up %+v, consumed %d of %d acknowledged (%d unresolved)", cu, consumed, p.Acked, p.Unresolved)
	}
}
