package consume

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/testkafka"
)

// BenchmarkConsume measures kbench's consumer engine against a bare
// franz-go poll loop with the same settings, on the same topic of a real
// broker: the difference in CPU per record is what kbench's measurement
// costs (counting, end-to-end latency histogram, lag tracking).
//
//	KBENCH_TEST_BOOTSTRAP=127.0.0.1:9092 go test -run '^$' -bench '^BenchmarkConsume$' -benchtime 2000000x ./internal/workload/
//
// The topic (KBENCH_BENCH_TOPIC, default a new one) is filled up to
// -benchtime records of KBENCH_BENCH_SIZE bytes (default 100) first.
func BenchmarkConsume(b *testing.B) {
	bootstrap := testkafka.Bootstrap(b)
	size := benchEnvInt(b, "KBENCH_BENCH_SIZE", 100)
	cc, _, err := kafkaconf.ParseConsumer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "bench"},
		{Key: "check.crcs", Value: "false", Source: "bench"}, // as the Apache tool
		{Key: "auto.offset.reset", Value: "earliest", Source: "bench"},
	})
	if err != nil {
		b.Fatal(err)
	}
	opts, err := cc.Opts()
	if err != nil {
		b.Fatal(err)
	}
	topic := os.Getenv("KBENCH_BENCH_TOPIC")
	if topic == "" {
		topic = "bench-consume-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	ctx := context.Background()
	if _, err := kadmin.EnsureTopic(ctx, opts, kadmin.TopicSpec{Name: topic, Partitions: 1, ReplicationFactor: -1}); err != nil {
		b.Fatal(err)
	}
	b.Run("bare", func(b *testing.B) {
		fillTopic(b, bootstrap, topic, b.N, size)
		benchConsumeBare(b, opts, topic, cc.MaxPollRecords)
	})
	b.Run("kbench", func(b *testing.B) {
		fillTopic(b, bootstrap, topic, b.N, size)
		benchConsumeKbench(b, opts, topic, cc.MaxPollRecords)
	})
}

// benchConsumeBare is the loop a user would write by hand: poll, count
// records and bytes, stop at N.
func benchConsumeBare(b *testing.B, opts []kgo.Opt, topic string, maxPoll int) {
	group := "bench-bare-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cl, err := kgo.NewClient(append(opts, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic))...)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	b.ResetTimer()
	cpu0, start := measure.ProcessCPU(), time.Now()
	var n, bytes int64
	for n < int64(b.N) {
		fs := cl.PollRecords(ctx, maxPoll)
		fs.EachRecord(func(r *kgo.Record) {
			n++
			bytes += int64(len(r.Key) + len(r.Value))
		})
	}
	report(b, b.N, time.Since(start), measure.ProcessCPU()-cpu0)
}

func benchConsumeKbench(b *testing.B, opts []kgo.Opt, topic string, maxPoll int) {
	spec := ConsumerSpec{
		Topics:         []string{topic},
		Group:          "bench-kbench-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		Records:        int64(b.N),
		IdleTimeout:    30 * time.Second,
		ClientOpts:     func(int) []kgo.Opt { return opts },
		MaxPollRecords: maxPoll,
		Latency:        true,
		Lag:            true,
		Interval:       time.Second,
	}
	b.ResetTimer()
	cpu0, start := measure.ProcessCPU(), time.Now()
	res, err := RunConsumer(context.Background(), spec)
	if err != nil {
		b.Fatal(err)
	}
	report(b, b.N, time.Since(start), measure.ProcessCPU()-cpu0)
	if res.Records != int64(b.N) || res.Latency.Count() != int64(b.N) {
		b.Fatalf("consumed %d, latencies %d, of %d", res.Records, res.Latency.Count(), b.N)
	}
}

// fillTopic produces records until the topic holds at least n.
func fillTopic(b *testing.B, bootstrap, topic string, n, size int) {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.ProducerLinger(5*time.Millisecond), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	have := consEndOffset(b, cl, topic)
	value := make([]byte, size)
	for i := range value {
		value[i] = 'a' + byte(i%26)
	}
	ctx := context.Background()
	for i := have; i < int64(n); i++ {
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				b.Error(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// benchEnvInt reads a positive whole number from the environment, def when
// unset; anything else fails the benchmark.
func benchEnvInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive whole number", name, s)
	}
	return n
}

func report(b *testing.B, n int, elapsed, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/record")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
}
