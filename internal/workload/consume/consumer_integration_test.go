package consume

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/testkafka"
)

// realConsumerOpts are the Java consumer's defaults as kafkaconf maps them,
// from the earliest offset, against the test broker.
func realConsumerOpts(t *testing.T, bootstrap string) []kgo.Opt {
	t.Helper()
	cc, _, err := kafkaconf.ParseConsumer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "test"},
		{Key: "auto.offset.reset", Value: "earliest", Source: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cc.Opts()
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

// realTopic creates a topic on the test broker and produces n records of
// 100 bytes to it, round robin over its partitions.
func realTopic(t *testing.T, bootstrap string, partitions int32, n int) string {
	t.Helper()
	topic := consTopic(t)
	testkafka.Topic(t, bootstrap, topic, partitions, n, 100)
	return topic
}

func consProduceReal(t *testing.T, ctx context.Context, cl *kgo.Client, n int) {
	t.Helper()
	value := make([]byte, 100)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: value}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// Produce K records, consume exactly K, with three consumers in a group
// on three partitions.
func TestIntegrationConsumeExactly(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	const k = 30000
	topic := realTopic(t, bootstrap, 3, k)
	opts := realConsumerOpts(t, bootstrap)
	tests := []struct {
		name string
		spec ConsumerSpec
	}{
		{"group of three", ConsumerSpec{Group: consTopic(t), Clients: 3}},
		{"assigned to two", ConsumerSpec{Clients: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			spec.Topics, spec.Records = []string{topic}, k
			spec.ClientOpts = func(int) []kgo.Opt { return opts }
			spec.IdleTimeout, spec.Interval = 20*time.Second, 200*time.Millisecond
			spec.Latency, spec.Lag = true, true
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			res, err := RunConsumer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Records != k || res.Bytes != 100*k || res.Reason != StopRecords {
				t.Fatalf("consumed %d records, %d bytes (%s); want %d, %d (records)", res.Records, res.Bytes, res.Reason, k, 100*k)
			}
			// Produced before the run, more than the skew allowance ago or
			// not: each record is either measured or counted as backlog.
			if got := res.Latency.Count() + res.Backlog; got != k {
				t.Errorf("%d latencies and %d backlog records, want %d in all", res.Latency.Count(), res.Backlog, k)
			}
			if len(res.Lag) == 0 || res.Lag[len(res.Lag)-1].Records != 0 {
				t.Errorf("lag samples %v: want a last sample of 0 after consuming everything", res.Lag)
			}
			if res.Topics[topic] != 3 {
				t.Errorf("topics = %v", res.Topics)
			}
		})
	}
}

// A rebalance in the middle of the run is counted and the run goes on.
func TestIntegrationRebalanceMidRun(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	const half = 5000
	topic := realTopic(t, bootstrap, 2, half)
	other := realTopic(t, bootstrap, 1, 0)
	group := consTopic(t)
	opts := realConsumerOpts(t, bootstrap)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run, err := StartConsumer(ctx, ConsumerSpec{
		Topics: []string{topic}, Group: group, Records: 2 * half,
		ClientOpts: func(int) []kgo.Opt { return opts }, IdleTimeout: 60 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-run.Ready()
	// Another member joins the group (for another topic, so it takes none
	// of ours) and leaves again: two rebalances for every member.
	joined := make(chan struct{}, 1)
	joiner, err := kgo.NewClient(append(opts, kgo.ConsumerGroup(group), kgo.ConsumeTopics(other),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { joined <- struct{}{} }))...)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-joined:
	case <-ctx.Done():
		t.Fatal("the second member never joined")
	}
	joiner.Close()

	prod, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	consProduceReal(t, ctx, prod, half)
	res, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 2*half || res.Reason != StopRecords {
		t.Errorf("consumed %d (%s), want %d (records)", res.Records, res.Reason, 2*half)
	}
	t.Logf("rebalances %d, rebalance time %s", res.Rebalances, res.Rebalance)
	if res.Rebalances < 1 {
		t.Errorf("rebalances = %d, want at least 1", res.Rebalances)
	}
}
