package workload

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// realTopic creates a topic on the test broker and produces n records of
// 100 bytes to it, round robin over its partitions.
func realTopic(t *testing.T, bootstrap string, partitions int32, n int) string {
	t.Helper()
	topic := consTopic(t)
	testkafka.Topic(t, bootstrap, topic, partitions, n, 100)
	return topic
}

// uniqueTopic returns a topic name no other test uses.
func consTopic(tb testing.TB) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(tb.Name())
	return strings.ToLower(name) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

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

func checkLatency(t *testing.T, h *measure.Histogram, n int64) {
	t.Helper()
	if h.Count() != n {
		t.Errorf("%d latencies, want %d", h.Count(), n)
	}
	p50, p99, maxUs := h.Quantile(0.5), h.Quantile(0.99), h.Max()
	if h.Min() < 0 || p50 > p99 || p99 > maxUs {
		t.Errorf("latency percentiles out of order: min %d p50 %d p99 %d max %d (µs)", h.Min(), p50, p99, maxUs)
	}
}

// fakeCluster starts an in-process kfake cluster with the topic, and
// produces n records of 10 bytes to it, spread over its partitions.
func consFakeCluster(t *testing.T, topic string, partitions int32, n int) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	consProduce(t, c.ListenAddrs(), topic, n)
	return c.ListenAddrs()
}

func consFakeOpts(addrs []string) func(int) []kgo.Opt {
	return func(int) []kgo.Opt {
		return []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchMaxWait(50 * time.Millisecond)}
	}
}

func testSpec(t *testing.T, seeds []string, topic string) produce.ProducerSpec {
	t.Helper()
	values, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	return produce.ProducerSpec{
		Topic:  topic,
		Values: values,
		ClientOpts: func(int) []kgo.Opt {
			return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(time.Millisecond)}
		},
		Interval: 50 * time.Millisecond,
	}
}

func consProduce(t *testing.T, addrs []string, topic string, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Key: []byte("k"), Value: []byte("value-" + strconv.Itoa(i%10) + "xx")}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}
