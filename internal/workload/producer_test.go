package workload

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/payload"
)

// fakeCluster starts an in-process Kafka with the given topic, for fast unit
// tests of the engine; integration tests use a real broker.
func fakeCluster(t *testing.T, topic string, partitions int32) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

func testSpec(t *testing.T, seeds []string, topic string) ProducerSpec {
	t.Helper()
	values, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ProducerSpec{
		Topic:  topic,
		Values: values,
		ClientOpts: func(int) []kgo.Opt {
			return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(time.Millisecond)}
		},
		Interval: 50 * time.Millisecond,
	}
}

func TestRunProducerCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		clients int
		records int64
		warmup  int64
	}{
		{"one client", 1, 5000, 0},
		{"three clients split records", 3, 5000, 0},
		{"warmup excluded from steady state", 2, 4000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seeds := fakeCluster(t, "t", 3)
			spec := testSpec(t, seeds, "t")
			spec.Clients, spec.Records, spec.Warmup = tt.clients, tt.records, tt.warmup
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunProducer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Acked != tt.records || res.Failed != 0 {
				t.Fatalf("acked %d failed %d, want %d acked", res.Acked, res.Failed, tt.records)
			}
			if res.Bytes != tt.records*100 {
				t.Fatalf("bytes %d, want %d", res.Bytes, tt.records*100)
			}
			if res.Latency.Count() != tt.records {
				t.Fatalf("histogram holds %d values, want %d", res.Latency.Count(), tt.records)
			}
			if res.Clients != tt.clients || res.LatencyFromIntended {
				t.Fatalf("clients %d intended %v", res.Clients, res.LatencyFromIntended)
			}
			var intervalTotal int64
			for _, iv := range res.Intervals {
				intervalTotal += iv.Count
			}
			if tt.warmup == 0 && intervalTotal != tt.records {
				t.Fatalf("intervals count %d records, want %d", intervalTotal, tt.records)
			}
			if tt.warmup > 0 {
				if res.Steady == nil || res.Steady.Acked != tt.records-tt.warmup || res.Steady.Latency.Count() != tt.records-tt.warmup {
					t.Fatalf("steady state = %+v, want %d records", res.Steady, tt.records-tt.warmup)
				}
				if res.Steady.Start.Before(res.Start) {
					t.Fatal("steady state starts before the run")
				}
			} else if res.Steady != nil {
				t.Fatal("steady state reported without warmup")
			}
		})
	}
}

// TestRunProducerMonotonicAcrossClients guards a bug: each client numbered
// its records from 0, so --payload-monotonic with --producers 3 sent every
// number three times.
func TestRunProducerMonotonicAcrossClients(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 2)
	spec := testSpec(t, seeds, "t")
	spec.Clients, spec.Records, spec.Values = 3, 3000, payload.Monotonic(3000)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := RunProducer(ctx, spec); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	seen := map[string]bool{}
	for len(seen) < 3000 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			if seen[string(r.Value)] {
				t.Fatalf("value %s sent twice", r.Value)
			}
			seen[string(r.Value)] = true
		})
	}
	for i := 0; i < 3000; i++ {
		if !seen[strconv.Itoa(i)] {
			t.Fatalf("value %d never sent", i)
		}
	}
}

func TestRunProducerFixedRateUsesIntendedTime(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 1)
	spec := testSpec(t, seeds, "t")
	spec.Records, spec.Rate = 200, 1000 // 200 ms of sending
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.LatencyFromIntended || res.Acked != 200 {
		t.Fatalf("intended %v acked %d", res.LatencyFromIntended, res.Acked)
	}
	// Record 199 is due 199 ms after the start; the pacer may send up to 1ms
	// early, never more.
	if el := res.End.Sub(res.Start); el < 198*time.Millisecond {
		t.Fatalf("200 records at 1000/s took %v", el)
	}
}

func TestRunProducerStallShowsInLatency(t *testing.T) {
	t.Parallel()
	// At a fixed rate, records held up by a stalled broker must show the
	// stall in their latency, counted from their intended send time.
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var stalled atomic.Bool
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		if stalled.CompareAndSwap(false, true) {
			c.SleepControl(func() { time.Sleep(300 * time.Millisecond) }) // one stalled produce
		}
		return nil, nil, false
	})
	spec := testSpec(t, c.ListenAddrs(), "t")
	spec.Records, spec.Rate = 300, 1000
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if max := res.Latency.Max(); max < 250_000 {
		t.Fatalf("max latency %dµs: a 300ms stall must show", max)
	}
}

func TestRunProducerDuration(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 1)
	spec := testSpec(t, seeds, "t")
	spec.Duration, spec.Rate = 300*time.Millisecond, 2000
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("a 300ms run took %v", el)
	}
	// 2000/s for 300ms is 600 records; allow slack for scheduling.
	if res.Acked < 300 || res.Acked > 700 {
		t.Fatalf("acked %d records in 300ms at 2000/s", res.Acked)
	}
}

func TestRunProducerCountsErrorsByKind(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "exists", 1)
	spec := testSpec(t, seeds, "missing")
	spec.Records = 50
	spec.ClientOpts = func(int) []kgo.Opt {
		return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.UnknownTopicRetries(1)}
	}
	var mu sync.Mutex
	seen := map[string]int{}
	spec.OnError = func(kind string, err error) { mu.Lock(); seen[kind]++; mu.Unlock() }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 50 || res.Acked != 0 {
		t.Fatalf("failed %d acked %d, want 50 failed", res.Failed, res.Acked)
	}
	if res.Errors["UNKNOWN_TOPIC_OR_PARTITION"] != 50 {
		t.Fatalf("errors = %v", res.Errors)
	}
	if seen["UNKNOWN_TOPIC_OR_PARTITION"] != 1 {
		t.Fatalf("OnError must be called once per kind, got %v", seen)
	}
}

func TestShare(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		total int64
		n     int
	}{{10, 3}, {1, 4}, {0, 2}, {1000001, 7}} {
		var sum int64
		for i := 0; i < tt.n; i++ {
			s := share(tt.total, tt.n, i)
			if s < tt.total/int64(tt.n) || s > tt.total/int64(tt.n)+1 {
				t.Fatalf("share(%d,%d,%d) = %d", tt.total, tt.n, i, s)
			}
			sum += s
		}
		if sum != tt.total {
			t.Fatalf("shares of %d over %d sum to %d", tt.total, tt.n, sum)
		}
	}
}
