package runner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

var topicSeq atomic.Int64

func testTopic(t *testing.T) string {
	return fmt.Sprintf("runner-%s-%d-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano()%1e6, topicSeq.Add(1))
}

func producerOpts(t *testing.T, bootstrap string) []kgo.Opt {
	t.Helper()
	pc, _, err := kafkaconf.ParseProducer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "test"},
		{Key: "acks", Value: "all", Source: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := pc.Opts(100)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

func consumerOpts(t *testing.T, bootstrap string) []kgo.Opt {
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

func values(t *testing.T) payload.Source {
	t.Helper()
	v, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// endOffsets sums the topic's end offsets: what it holds.
func endOffsets(t *testing.T, bootstrap, topic string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

// One scenario runs a producer, a consumer group reading what it writes and
// an end-to-end probe at a fixed rate side by side; run twice, the recreated
// topics hold exactly one run's records, and the counts agree everywhere.
func TestIntegrationRunScenario(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	main, probe := testTopic(t), testTopic(t)
	const n, probeN = 30000, 2000
	popts, copts := producerOpts(t, bootstrap), consumerOpts(t, bootstrap)
	sc := Scenario{
		Name:  "all kinds",
		Admin: []kgo.Opt{kgo.SeedBrokers(bootstrap)},
		Topics: []Topic{
			{TopicSpec: kadmin.TopicSpec{Name: main, Partitions: 3, ReplicationFactor: 1}, Existing: kadmin.Recreate},
			{TopicSpec: kadmin.TopicSpec{Name: probe, Partitions: 1, ReplicationFactor: 1}, Existing: kadmin.Recreate},
		},
		Workloads: []Workload{
			{Name: "producers", Spec: workload.Produce{Spec: produce.ProducerSpec{
				Topic: main, Clients: 2, Records: n, Values: values(t),
				ClientOpts: func(int) []kgo.Opt { return popts }, Interval: time.Second,
			}}},
			{Name: "readers", Spec: workload.Consume{Spec: consume.ConsumerSpec{
				Topics: []string{main}, Group: main, Clients: 2, Records: n, IdleTimeout: time.Minute,
				ClientOpts: func(int) []kgo.Opt { return copts }, Interval: time.Second,
			}}},
			{Name: "probe", Spec: workload.EndToEnd{
				Send: produce.ProducerSpec{Topic: probe, Records: probeN, Rate: 1000, Values: values(t),
					ClientOpts: func(int) []kgo.Opt { return popts }, Interval: time.Second},
				Read: consume.ConsumerSpec{Topics: []string{probe},
					ClientOpts: func(int) []kgo.Opt { return copts }, Interval: time.Second},
			}},
		},
	}
	for round := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		out, err := Run(ctx, sc)
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(out.Topics) != 2 || !out.Topics[0].Created || out.Topics[0].Partitions != 3 {
			t.Errorf("round %d: topics %+v, want both created, the first with 3 partitions", round, out.Topics)
		}
		prod, read, e2e := out.Workloads[0], out.Workloads[1], out.Workloads[2]
		if prod.Publish == nil || prod.Publish.Acked != n {
			t.Fatalf("round %d: producers %+v, want %d acknowledged", round, prod.Publish, n)
		}
		if read.Read == nil || read.Read.Records != n {
			t.Errorf("round %d: readers consumed %+v, want %d", round, read.Read, n)
		}
		if e2e.Publish == nil || e2e.EndToEnd == nil || e2e.Publish.Acked != probeN || e2e.EndToEnd.Latency.Count() != probeN {
			t.Errorf("round %d: end-to-end %+v / %+v, want %d records sent and %d latencies", round, e2e.Publish, e2e.EndToEnd, probeN, probeN)
		}
		if got := endOffsets(t, bootstrap, main); got != n {
			t.Errorf("round %d: topic holds %d records, want %d (recreated each run)", round, got, n)
		}
		if out.Setup <= 0 || out.End.Before(out.Start) || out.CPU <= 0 {
			t.Errorf("round %d: setup %v, start %v, end %v, cpu %v", round, out.Setup, out.Start, out.End, out.CPU)
		}
	}
}

// A topic that exists with existing: fail is refused before anything runs.
func TestIntegrationExistingFail(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	name := testTopic(t)
	testkafka.Topic(t, bootstrap, name, 1, 10, 10)
	_, err := kadmin.PrepareTopic(context.Background(), []kgo.Opt{kgo.SeedBrokers(bootstrap)},
		kadmin.TopicSpec{Name: name, Partitions: 1}, kadmin.Fail)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err = %v, want a refusal naming the existing topic", err)
	}
}

// TestRunVirtualUsersLittlesLaw: against the real broker, virtual users
// make records/s ≈ users ÷ mean latency (Little's law), within 15%, at 1
// and 10 users.
func TestRunVirtualUsersLittlesLaw(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	pc, _, err := kafkaconf.ParseProducer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "test"},
		{Key: "acks", Value: "1", Source: "test"},
		{Key: "linger.ms", Value: "0", Source: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	popts, err := pc.Opts(100)
	if err != nil {
		t.Fatal(err)
	}
	for _, vus := range []int{1, 10} {
		topic := testTopic(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := Run(ctx, Scenario{
			Name:   "vus",
			Admin:  popts,
			Topics: []Topic{{TopicSpec: kadmin.TopicSpec{Name: topic, Partitions: 2}, Existing: kadmin.Recreate}},
			Workloads: []Workload{{Name: "users", Spec: workload.Produce{Spec: produce.ProducerSpec{Topic: topic, VUs: vus,
				Duration: 3 * time.Second, Values: values(t), ClientOpts: func(int) []kgo.Opt { return popts }}}}},
		})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		p := out.Workloads[0].Publish
		rate := float64(p.Acked) / p.End.Sub(p.Start).Seconds()
		little := float64(vus) / (p.Latency.Mean() / 1e6)
		if rate < 0.85*little || rate > 1.15*little {
			t.Errorf("%d users: %.0f records/s; users ÷ mean latency (%.2f ms) = %.0f: want within 15%%", vus, rate, p.Latency.Mean()/1000, little)
		}
	}
}
