package produce

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/load"
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

// stallFirstProduce is a one-broker in-process cluster with topic "t"
// whose first produce request is answered only after d.
func stallFirstProduce(t *testing.T, d time.Duration) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	hold := kfakehold.New(t, c)
	var stalled atomic.Bool
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		if stalled.CompareAndSwap(false, true) {
			hold.For(d)
		}
		return nil, nil, false
	})
	return c
}

func TestRunProducerStallShowsInLatency(t *testing.T) {
	t.Parallel()
	// At a fixed rate, records held up by a stalled broker must show the
	// stall in their latency, counted from their intended send time.
	c := stallFirstProduce(t, 300*time.Millisecond)
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
			s := engine.EvenPart(tt.total, tt.n, i)
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

// TestRunProducerBlockedSenderCarriesTheWait: regression guard for the
// coordinated-omission correction: replacing the intended send time with
// the actual one left every test green. Here the sender itself blocks
// (the client's buffer holds 5 records while the broker holds its first
// produce response for 500 ms), so the records due meanwhile are sent
// late; each must carry the wait from its intended send time.
func TestRunProducerBlockedSenderCarriesTheWait(t *testing.T) {
	t.Parallel()
	// The buffer's limit in records, and in bytes (franz-go counts keys,
	// values and headers: 5 records of 100 B with a 10 B header fill 550):
	// kbench notices a full buffer without asking franz-go per record, and
	// must not miss one either way.
	for _, tt := range []struct {
		name  string
		limit kgo.Opt
	}{
		{"records", kgo.MaxBufferedRecords(5)},
		{"bytes", kgo.MaxBufferedBytes(550)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := stallFirstProduce(t, 500*time.Millisecond)
			spec := testSpec(t, c.ListenAddrs(), "t")
			seeds := c.ListenAddrs()
			spec.ClientOpts = func(int) []kgo.Opt {
				return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(0), tt.limit}
			}
			spec.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("123456789")}}
			spec.Records, spec.Rate = 1000, 1000
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunProducer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			// About half the records were due during the 500 ms block, their
			// waits spread from 0 to 500 ms: a quarter of all records waited
			// 250 ms or more. Measured from the actual send, they would show
			// only the ack.
			if p75 := res.Latency.Quantile(0.75); p75 < 100_000 {
				t.Fatalf("p75 latency %dµs: records due while the sender was blocked must carry the wait", p75)
			}
			if res.BufferFull < 200*time.Millisecond {
				t.Errorf("buffer-full time %v: the sender blocked for about 500ms", res.BufferFull)
			}
		})
	}
}

// TestRunProducerWarmupRunWide: regression: each client took its share of
// --warmup-records, rounded, so 3 producers, 3000 records and a warm-up of
// 2 gave 1998 steady records, a whole client's worth too few. Steady state
// is decided on the run-wide record index.
func TestRunProducerWarmupRunWide(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 3)
	tests := []struct {
		warmup, wantSteady int64
	}{{2, 2998}, {3, 2997}, {1500, 1500}}
	for _, tt := range tests {
		spec := testSpec(t, seeds, "t")
		spec.Clients, spec.Records, spec.Warmup = 3, 3000, tt.warmup
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := RunProducer(ctx, spec)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if res.Steady == nil || res.Steady.Acked != tt.wantSteady {
			t.Errorf("warm-up %d: steady %+v, want %d steady records", tt.warmup, res.Steady, tt.wantSteady)
		}
	}
}

// TestRunProducerNoSteadyRecord: regression: with no steady record
// acknowledged (the run ended during the warm-up), steady_state's duration
// was measured from the zero time: 9.2e9 seconds. It is left out.
func TestRunProducerNoSteadyRecord(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 1)
	spec := testSpec(t, seeds, "t")
	spec.Duration, spec.Rate, spec.WarmupDuration = 200*time.Millisecond, 1000, time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	// The result has a steady state only once a steady record was
	// acknowledged (ProducerSummary).
	if res.Acked == 0 || res.Steady != nil && !res.Steady.Start.IsZero() {
		t.Fatalf("acked %d, steady state %+v; want records and no steady state", res.Acked, res.Steady)
	}
}

// TestRunProducerSeriesCountsEveryRecord: regression: the interval series
// dropped warm-up records acknowledged after steady state began, and the
// series changed meaning at the switch. Every record is in exactly one
// interval, steady ones flagged. Counts only: the intervals' alignment on
// the epoch and their widths are TestReportersAlignIntervalsOnTheEpoch's,
// on a synctest clock (checked here against wall time, a 35 ms bound
// failed on a loaded machine).
func TestRunProducerSeriesCountsEveryRecord(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 2)
	spec := testSpec(t, seeds, "t")
	spec.Records, spec.Rate, spec.Warmup = 3000, 5000, 1000
	spec.Epoch = time.Now().Add(-30 * time.Millisecond) // the scenario's clock started a little earlier
	var emitted []measure.Interval
	spec.OnSeries = func(iv measure.Interval) { emitted = append(emitted, iv) } // on the reporter goroutine, read after the run
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	var sum, sumEmitted int64
	steady := false
	for _, iv := range res.Intervals {
		sum += iv.Count
		steady = steady || iv.Steady
	}
	for _, iv := range emitted {
		sumEmitted += iv.Count
	}
	if sum != res.Acked || sumEmitted != res.Acked || !steady {
		t.Fatalf("series counts %d records (%d given to OnSeries) of %d acknowledged (steady flagged: %v)", sum, sumEmitted, res.Acked, steady)
	}
}

// TestRunProducerInterruptedWithOutstandingRecords: regression: after
// Ctrl-C with records still outstanding (the broker not answering),
// RunProducer returned no result at all: nothing printed, no JSON. It now
// returns what was measured, with the unresolved records counted, within
// its flush bound. The broker answers the first produce request and holds
// the rest; Ctrl-C comes once one is held (it came at 700 ms, and on a
// loaded machine under -race the client had by then sent all its records
// in the three requests answered: nothing was outstanding).
func TestRunProducerInterruptedWithOutstandingRecords(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var produced atomic.Int64
	held := make(chan struct{}, 1)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		if produced.Add(1) > 1 {
			select {
			case held <- struct{}{}:
			default:
			}
			c.SleepControl(func() { time.Sleep(5 * time.Second) }) // the broker stops answering
		}
		return nil, nil, false
	})
	spec := testSpec(t, c.ListenAddrs(), "t")
	spec.Rate, spec.FlushTimeout = 2000, 500*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupted atomic.Int64
	go func() {
		<-held
		interrupted.Store(time.Now().UnixNano())
		cancel() // Ctrl-C
	}()
	res, err := RunProducer(ctx, spec)
	// A hang guard: the bound is the 500ms flush and the 1s close wait.
	if el := time.Since(time.Unix(0, interrupted.Load())); el > 4*time.Second {
		t.Fatalf("interrupted run took %v after the interrupt; bound: the 500ms flush and close waits", el)
	}
	if res == nil {
		t.Fatalf("no result after the interrupt (err %v)", err)
	}
	if res.Unresolved == 0 || res.Acked == 0 {
		t.Fatalf("acked %d, unresolved %d: want both counted (failed %d, errors %v, not sent %d, err %v)", res.Acked, res.Unresolved, res.Failed, res.Errors, res.NotSent, err)
	}
}

// TestRunProducerVirtualUsers: in the closed model each user has one
// record in flight, so records/s ≈ users ÷ mean latency (Little's law).
// The broker answers every produce after 25 ms, so 1 user makes at most
// ~40 records/s and 10 users ~10 times that. The time between an answer
// and the user's next record is outside the latency: 25 ms (not 5 ms)
// keeps that gap, which a loaded machine under -race stretches to a few
// ms, small beside it; 3 s keeps a record cut off at the end small
// beside the count (one CPU under load made 5 records/s for 1 user).
func TestRunProducerVirtualUsers(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		c.SleepControl(func() { time.Sleep(25 * time.Millisecond) })
		return nil, nil, false
	})
	for _, vus := range []int{1, 10} {
		spec := testSpec(t, c.ListenAddrs(), "t")
		spec.VUs, spec.Duration = vus, 3*time.Second
		seeds := c.ListenAddrs()
		spec.ClientOpts = func(int) []kgo.Opt {
			return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := RunProducer(ctx, spec)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		secs := res.End.Sub(res.Start).Seconds()
		rate := float64(res.Acked) / secs
		little := float64(vus) / (res.Latency.Mean() / 1e6)
		t.Logf("%d users: %.0f records/s, users ÷ mean latency %.0f", vus, rate, little)
		if res.Acked == 0 || rate < 0.85*little || rate > 1.15*little {
			t.Errorf("%d users: %.0f records/s, users ÷ mean latency = %.0f: want within 15%%", vus, rate, little)
		}
		if vus == 1 && rate > 50 {
			t.Errorf("1 user made %.0f records/s with a 25ms broker: it did not wait for each acknowledgement", rate)
		}
	}
}

// TestRunProducerStages: a ramping load follows its stages: a hold at
// 250/s for 2 s, then 500/s for 2 s. The run sends what the schedule
// says (within 5%), and the second half about twice the first (counted
// over whole halves: a loaded machine delays single intervals). Rates a
// loaded machine keeps up with under -race (it did not at 2000 and
// 4000/s, nor at 1000/s on one CPU), and halves of 2 s, so that
// acknowledgements delayed across the step (160 ms on one CPU) move a
// small share of a half's records.
func TestRunProducerStages(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "t", 2)
	spec := testSpec(t, seeds, "t")
	spec.Clients = 2
	spec.Stages = []load.Stage{
		{Duration: 10 * time.Millisecond, Rate: 250}, {Duration: 1990 * time.Millisecond, Rate: 250},
		{Duration: 10 * time.Millisecond, Rate: 500}, {Duration: 1990 * time.Millisecond, Rate: 500},
	}
	spec.Duration = 4 * time.Second
	spec.Interval = 250 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.LatencyFromIntended {
		t.Error("a staged run measures from the intended send times")
	}
	want := 0.01*125 + 1.99*250 + 0.01*375 + 1.99*500 // the schedule's records
	if got := float64(res.Acked); got < 0.95*want || got > 1.05*want {
		t.Errorf("sent %.0f records, the stages give %.0f", got, want)
	}
	var first, second int64
	for _, iv := range res.Intervals {
		if iv.Elapsed-iv.Length/2 < 2*time.Second {
			first += iv.Count
		} else {
			second += iv.Count
		}
	}
	t.Logf("sent %d of the schedule's %.0f; %d records in the first half, %d in the second", res.Acked, want, first, second)
	if ratio := float64(second) / float64(first); ratio < 1.6 || ratio > 2.4 {
		t.Errorf("%d records in the first half, %d in the second: want about twice as many", first, second)
	}
}

// TestRunProducerKeyAndHeaderTemplates: templated keys and headers reach
// the broker, rendered per record, beside the static headers.
func TestRunProducerKeyAndHeaderTemplates(t *testing.T) {
	t.Parallel()
	seeds := fakeCluster(t, "kh", 1)
	spec := testSpec(t, seeds, "kh")
	spec.Records = 20
	var err error
	if spec.KeySource, err = payload.CompileRaw(payload.Template{Kind: payload.KindGenerator, Gen: payload.Generator{Type: "uuid"}}, 1); err != nil {
		t.Fatal(err)
	}
	seq, err := payload.CompileRaw(payload.Template{Kind: payload.KindGenerator, Gen: payload.Generator{Type: "sequence"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec.HeaderSources = []HeaderSource{{Key: "seq", Values: seq}}
	spec.Headers = []kgo.RecordHeader{{Key: "source", Value: []byte("kbench")}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := RunProducer(ctx, spec); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics("kh"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	seen := map[string]bool{}
	for len(seen) < 20 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of 20 records", len(seen))
		}
		fs.EachRecord(func(r *kgo.Record) {
			if len(r.Key) != 36 || len(r.Headers) != 2 || r.Headers[0].Key != "source" || r.Headers[1].Key != "seq" {
				t.Fatalf("record key %q headers %v", r.Key, r.Headers)
			}
			seen[string(r.Headers[1].Value)] = true
		})
	}
	for i := 0; i < 20; i++ {
		if !seen[strconv.Itoa(i)] {
			t.Fatalf("header seq %d missing: %v", i, seen)
		}
	}
}

// TestRunProducerIntervalPercentiles: each interval of the series carries
// its own latency percentiles, read off the records that completed in it:
// with the broker answering every produce after 5 ms, no interval's p50 is
// below that, and p50 ≤ p99 ≤ p99.9 ≤ the interval's max (within the
// interval histogram's 1%).
func TestRunProducerIntervalPercentiles(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		c.SleepControl(func() { time.Sleep(5 * time.Millisecond) })
		return nil, nil, false
	})
	spec := testSpec(t, c.ListenAddrs(), "t")
	spec.Records, spec.Rate = 400, 2000
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i, iv := range res.Intervals {
		if iv.Count == 0 {
			continue
		}
		seen++
		maxUs := float64(iv.LatMaxUs) * 1.01
		if iv.P50Us < 5000 || float64(iv.P50Us) > float64(iv.P99Us)*1.01 || float64(iv.P99Us) > float64(iv.P999Us)*1.01 || float64(iv.P999Us) > maxUs {
			t.Errorf("interval %d: p50 %d, p99 %d, p99.9 %d, max %d µs: not ordered or below the broker's 5 ms", i, iv.P50Us, iv.P99Us, iv.P999Us, iv.LatMaxUs)
		}
	}
	if seen < 2 {
		t.Fatalf("only %d intervals with records", seen)
	}
}

// TestTimestampAtKeepsKafkasMilliseconds: the per-millisecond timestamp
// gives every record the millisecond start.Add(sent) would, across
// millisecond boundaries.
func TestTimestampAtKeepsKafkasMilliseconds(t *testing.T) {
	start := time.Date(2026, 11, 25, 9, 0, 0, 999_400_000, time.UTC)
	c := &producerClient{start: start, startNs: start.UnixNano()}
	for _, sent := range []time.Duration{0, 599_999, 600_000, 600_001, 1_599_999, 1_600_000, 5 * time.Second, 5*time.Second + 1} {
		got, want := c.timestampAt(sent).UnixMilli(), start.Add(sent).UnixMilli()
		if got != want {
			t.Errorf("sent %v: timestamp %d ms, want %d", sent, got, want)
		}
	}
}

// TestRunProducerSteadyStateOnAckTimeline: regression: steady state began
// when the first record past the warm-up was sent, so with a broker that
// answered late the window opened before the first acknowledgement and
// every acknowledgement fell inside it, while the interval series marked
// steady intervals in which only warm-up records completed. Steady
// state's records are decided on the acknowledgement timeline: those
// completing after the warm-up's last one (or the warm-up time). Its
// window starts at the warm-up's last send (issue 33), which the series'
// marks follow, and AckLag says how late the acknowledgements came.
func TestRunProducerSteadyStateOnAckTimeline(t *testing.T) {
	t.Parallel()
	const stall = 500 * time.Millisecond
	tests := []struct {
		name       string
		records    int64
		rate       float64
		warmup     int64
		warmupFor  time.Duration
		wantSteady int64
		wantLag    time.Duration // the acknowledgements lagged at least this
		wantBefore time.Duration // the window starts before this
	}{
		// Unlimited: the 200 warm-up records are sent at once, and
		// acknowledged only after the stall.
		{name: "record warm-up", records: 2000, warmup: 200, wantSteady: 1800, wantLag: stall - 50*time.Millisecond, wantBefore: 50 * time.Millisecond},
		// Records sent from 0 to 0.8 s, none acknowledged before the
		// stall ends: every acknowledgement is past the 300 ms warm-up,
		// and every record is steady, so the window starts at the first
		// send.
		{name: "time warm-up", records: 1600, rate: 2000, warmupFor: 300 * time.Millisecond, wantSteady: 1600, wantLag: 300 * time.Millisecond, wantBefore: time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := stallFirstProduce(t, stall)
			spec := testSpec(t, c.ListenAddrs(), "t")
			spec.Records, spec.Rate, spec.Warmup, spec.WarmupDuration = tt.records, tt.rate, tt.warmup, tt.warmupFor
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunProducer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Steady == nil || res.Steady.Acked != tt.wantSteady || res.Steady.Latency.Count() != tt.wantSteady {
				t.Fatalf("steady state %+v, want %d records", res.Steady, tt.wantSteady)
			}
			at := res.Steady.Start.Sub(res.Start)
			if at >= tt.wantBefore || res.Steady.AckLag < tt.wantLag {
				t.Fatalf("steady window began %v after the start, acknowledgements lagged %v; want before %v, lagging at least %v", at, res.Steady.AckLag, tt.wantBefore, tt.wantLag)
			}
			for i, iv := range res.Intervals {
				if ends := iv.Elapsed; iv.Steady != (ends >= at) {
					t.Errorf("interval %d ending at %v marked steady %v; steady state began at %v", i, ends, iv.Steady, at)
				}
			}
		})
	}
}

// TestRunProducerSentLatency: at a fixed rate the run measures, beside
// the latency from each record's intended send time, the latency from its
// actual send (what the Apache tool's lines mean): records a stalled
// broker held back in a full buffer were sent late, so their latency from
// the actual send is the shorter (regression: the drop-in's Java-format
// lines showed 1,914 ms where records took milliseconds once sent). At an
// unlimited rate there is one latency.
func TestRunProducerSentLatency(t *testing.T) {
	t.Parallel()
	c := stallFirstProduce(t, 300*time.Millisecond)
	spec := testSpec(t, c.ListenAddrs(), "t")
	opts := spec.ClientOpts
	spec.ClientOpts = func(i int) []kgo.Opt { return append(opts(i), kgo.MaxBufferedRecords(5)) }
	spec.Records, spec.Rate = 300, 1000
	var sent, all measure.WindowStats
	spec.OnInterval = func(iv measure.Interval) { sent.Merge(iv.Sent); all.Merge(iv.WindowStats) }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := RunProducer(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.SentLatency == nil || res.SendDelay == nil {
		t.Fatalf("no latency from the actual send (%v) or send delay (%v) at a fixed rate", res.SentLatency, res.SendDelay)
	}
	if res.SentLatency.Count() != res.Latency.Count() || sent.Count != all.Count || sent.LatSumUs >= all.LatSumUs {
		t.Errorf("from the actual send: %d records, intervals %+v; from the intended time: %d records, intervals %+v",
			res.SentLatency.Count(), sent, res.Latency.Count(), all)
	}
	if res.SendDelay.Max() < 100_000 || res.SentLatency.Quantile(0.5) >= res.Latency.Quantile(0.5) {
		t.Errorf("send delay max %d µs; p50 from the actual send %d µs, from the intended time %d µs: the held-back records' wait belongs to the second only",
			res.SendDelay.Max(), res.SentLatency.Quantile(0.5), res.Latency.Quantile(0.5))
	}

	spec = testSpec(t, fakeCluster(t, "u", 1), "u")
	spec.Records = 100
	if res, err = RunProducer(ctx, spec); err != nil || res.SentLatency != nil {
		t.Errorf("an unlimited rate: %v, latency from the actual send %v; want one latency", err, res.SentLatency)
	}
}
