package workload

import (
	"context"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestEndToEndSlowRecordIsReported: a record that takes longer than
// stallNotice is reported while it waits (not acknowledged yet), the
// cluster's check finds it answering, and the run goes on: only a cluster
// that does not answer ends it early.
func TestEndToEndSlowRecordIsReported(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "slow"))
	if err != nil {
		t.Fatal(err)
	}
	hold := kfakehold.New(t, c)
	slowed := false
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		if !slowed { // the first produce only: the broker holds it past stallNotice
			slowed = true
			hold.For(stallNotice + time.Second)
		}
		return nil, nil, false
	})
	seeds := c.ListenAddrs()
	type stall struct {
		i     int
		acked bool
	}
	var stalls []stall
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunEndToEnd(ctx, E2ESpec{Topic: "slow", Records: 3, ValueSize: 10,
		ProducerOpts: []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()},
		ConsumerOpts: []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.FetchMaxWait(10 * time.Millisecond)},
		OnStall: func(i int, waited time.Duration, acked bool) {
			stalls = append(stalls, stall{i, acked}) // the trip's timer goroutine; read after the run
		},
	})
	if err != nil {
		t.Fatalf("a slow but answering cluster ended the run: %v", err)
	}
	if res.Count != 3 || len(stalls) != 1 || stalls[0] != (stall{0, false}) {
		t.Fatalf("%d records, stalls %+v; want 3 records and record 0 reported once, not acknowledged", res.Count, stalls)
	}
}

// The end-to-end probe: every latency measured, percentiles in order.
func TestIntegrationEndToEnd(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	topic := realTopic(t, bootstrap, 1, 0)
	opts := realConsumerOpts(t, bootstrap)
	prodOpts := []kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()}
	var lines int
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := RunEndToEnd(ctx, E2ESpec{
		Topic: topic, Records: 1200, ValueSize: 100, KeySize: 8, Headers: 2, HeaderKeySize: 3, HeaderValueSize: -1,
		ProducerOpts: prodOpts, ConsumerOpts: append(opts, kgo.FetchMaxWait(10*time.Millisecond)),
		OnRecord: func(i int, d time.Duration) {
			if d < 0 {
				t.Errorf("record %d: negative latency %s", i, d)
			}
			lines++
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 1200 || lines != 1200 {
		t.Errorf("count %d, callbacks %d, want 1200", res.Count, lines)
	}
	checkLatency(t, res.Latency, 1200)
	var n int64
	for _, c := range res.MsCounts {
		n += c
	}
	if n != 1200 {
		t.Errorf("millisecond counts add up to %d, want 1200", n)
	}
}
