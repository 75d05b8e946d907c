package consume

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/userr"
)

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

func consFakeOpts(addrs []string) func(int) []kgo.Opt {
	return func(int) []kgo.Opt {
		return []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchMaxWait(50 * time.Millisecond)}
	}
}

func TestRunConsumerCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		partitions int32
		produced   int
		spec       ConsumerSpec
		wantCount  int64
		wantReason StopReason
	}{
		{"group, one client", 1, 500, ConsumerSpec{Group: "g", Records: 500}, 500, StopRecords},
		{"group, three clients", 3, 900, ConsumerSpec{Group: "g", Clients: 3, Records: 900}, 900, StopRecords},
		{"fewer than there are", 2, 600, ConsumerSpec{Group: "g", Records: 250}, 250, StopRecords},
		{"assigned, two clients", 3, 300, ConsumerSpec{Clients: 2, Records: 300}, 300, StopRecords},
		{"more than there are: idle timeout", 1, 100, ConsumerSpec{Group: "g", Records: 101}, 100, StopIdle},
		{"duration", 1, 100, ConsumerSpec{Duration: time.Second}, 100, StopDuration},
		{"from the end: nothing", 1, 100, ConsumerSpec{Latest: true, IdleTimeout: 300 * time.Millisecond, Records: 1}, 0, StopIdle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addrs := consFakeCluster(t, "t", tt.partitions, tt.produced)
			spec := tt.spec
			spec.Topics = []string{"t"}
			spec.ClientOpts = consFakeOpts(addrs)
			spec.Latency, spec.Lag = true, true
			spec.Interval = 50 * time.Millisecond
			if spec.IdleTimeout == 0 {
				spec.IdleTimeout = 2 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunConsumer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Records != tt.wantCount || res.Reason != tt.wantReason {
				t.Errorf("consumed %d (%s), want %d (%s)", res.Records, res.Reason, tt.wantCount, tt.wantReason)
			}
			// Every record has a latency or is counted as backlog: the
			// records are written before the run starts, and on a loaded
			// machine some more than engine.BacklogSkew (1 s) before it, which
			// makes them backlog whose "latency" would be their age (one
			// run counted 415 latencies for 500 records). The sum does
			// not depend on how slow the machine is.
			if res.Latency.Count()+res.Backlog != res.Records {
				t.Errorf("%d latencies + %d backlog for %d records", res.Latency.Count(), res.Backlog, res.Records)
			}
			// "key" + "value-Nxx": 1 + 9 bytes a record, as the Apache tool counts.
			if res.Bytes != 10*res.Records {
				t.Errorf("bytes = %d, want %d", res.Bytes, 10*res.Records)
			}
			var sum int64
			for _, iv := range res.Intervals {
				sum += iv.Records
			}
			if sum != res.Records {
				t.Errorf("intervals add up to %d records, want %d", sum, res.Records)
			}
			if res.End.Before(res.Start) {
				t.Errorf("end %v before start %v", res.End, res.Start)
			}
		})
	}
}

// A consumer started before the producer, told the total once the producer
// is done, stops exactly there: the wiring of producer-perf-test --e2e.
func TestConsumerRunFinish(t *testing.T) {
	t.Parallel()
	addrs := consFakeCluster(t, "t", 2, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := StartConsumer(ctx, ConsumerSpec{Topics: []string{"t"}, Latest: true, ClientOpts: consFakeOpts(addrs), Latency: true})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.Ready():
	case <-ctx.Done():
		t.Fatal("consumer never ready")
	}
	consProduce(t, addrs, "t", 300)
	run.Finish(300)
	res, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 300 || res.Reason != StopRecords {
		t.Errorf("consumed %d (%s), want 300 (records)", res.Records, res.Reason)
	}
	if res.Latency.Min() < 0 || res.Latency.Quantile(0.5) > res.Latency.Max() {
		t.Errorf("latency min %d p50 %d max %d", res.Latency.Min(), res.Latency.Quantile(0.5), res.Latency.Max())
	}
}

func TestStartConsumerTopicErrors(t *testing.T) {
	t.Parallel()
	addrs := consFakeCluster(t, "present", 1, 0)
	tests := []struct {
		name string
		spec ConsumerSpec
		want string
	}{
		{"missing topic", ConsumerSpec{Topics: []string{"absent"}}, `topic "absent" does not exist`},
		{"missing topics", ConsumerSpec{Topics: []string{"absent", "present", "gone"}}, "topics absent, gone do not exist"},
		{"regex matching nothing", ConsumerSpec{Regex: regexp.MustCompile(`^(?:nothing.*)$`)}, `no topic matches --include "nothing.*"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			spec.ClientOpts = consFakeOpts(addrs)
			start := time.Now()
			_, err := StartConsumer(context.Background(), spec)
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("StartConsumer = %v, want a user error with %q", err, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s to fail; a missing topic must fail fast", d)
			}
		})
	}
}

func TestConsumerSpecErrors(t *testing.T) {
	t.Parallel()
	opts := func(int) []kgo.Opt { return nil }
	tests := []struct {
		name string
		spec ConsumerSpec
	}{
		{"no topic", ConsumerSpec{ClientOpts: opts}},
		{"topic and regex", ConsumerSpec{Topics: []string{"t"}, Regex: regexp.MustCompile("t"), ClientOpts: opts}},
		{"no options", ConsumerSpec{Topics: []string{"t"}}},
		{"negative records", ConsumerSpec{Topics: []string{"t"}, ClientOpts: opts, Records: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := RunConsumer(context.Background(), tt.spec); err == nil || errors.Is(err, context.Canceled) {
				t.Errorf("RunConsumer(%+v) = %v, want a spec error", tt.spec, err)
			}
		})
	}
}

// TestRunConsumerBacklogIsNotLatency: regression: over an old backlog the
// consumer recorded each record's age as its end-to-end latency. Records
// sent before the run are counted as backlog, the rest measured, and the
// result says where the send times came from.
func TestRunConsumerBacklogIsNotLatency(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "b-false", "b-true"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every run keeps each interval's series histogram; OMB's
	// (IntervalHistograms) also a 3-digit one. Each run reads its own
	// topic, written just before it: the 30 recent records must be within
	// engine.BacklogSkew of its start (a loaded machine took a second over the
	// first run, and the second then saw all 80 as backlog).
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("3-digit histograms %v", full), func(t *testing.T) {
			topic := fmt.Sprintf("b-%v", full)
			var recs []*kgo.Record
			for i := 0; i < 80; i++ {
				r := &kgo.Record{Topic: topic, Value: []byte("v")}
				if i < 50 {
					r.Timestamp = time.Now().Add(-time.Hour) // an hour-old backlog
				}
				recs = append(recs, r)
			}
			if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			res, err := RunConsumer(ctx, ConsumerSpec{Topics: []string{topic}, Records: 80, Latency: true, IntervalHistograms: full,
				ClientOpts: consFakeOpts(c.ListenAddrs())})
			if err != nil {
				t.Fatal(err)
			}
			checkBacklogRun(t, res, full)
		})
	}
}

// checkBacklogRun checks TestRunConsumerBacklogIsNotLatency's run.
func checkBacklogRun(t *testing.T, res *ConsumerResult, full bool) {
	t.Helper()
	lat := res.Latency
	// Latency from the records' timestamps only (the result's source
	// "timestamp").
	if res.Records != 80 || res.Backlog != 50 || lat.Count() != 30 || res.FromTimestamp == 0 || res.FromHeader != 0 {
		t.Fatalf("records %d, backlog %d, latency count %d, from timestamps %d, from headers %d; want 80, 50, 30, some, 0",
			res.Records, res.Backlog, lat.Count(), res.FromTimestamp, res.FromHeader)
	}
	if lat.Max() > int64(time.Minute/time.Microsecond) {
		t.Fatalf("max latency %dµs: the backlog's age leaked into the latency", lat.Max())
	}
	// Each interval keeps its latencies' histograms: together, the run's.
	var n, maxUs int64
	series := measure.NewSeriesHistogram()
	for _, iv := range res.Intervals {
		series.Merge(iv.Series)
		if iv.Histogram == "" {
			continue
		}
		h, err := measure.Decode(iv.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		n, maxUs = n+h.Count(), max(maxUs, h.Max())
	}
	if full && (n != lat.Count() || maxUs < lat.Max()) {
		t.Fatalf("intervals' histograms hold %d latencies (max %d µs), the run %d (max %d)", n, maxUs, lat.Count(), lat.Max())
	}
	if !full && n != 0 {
		t.Fatalf("intervals keep 3-digit histograms of %d latencies without IntervalHistograms", n)
	}
	if series.Count() != lat.Count() || series.Sum() != lat.Sum() || series.Min() != lat.Min() || series.Max() != lat.Max() {
		t.Fatalf("intervals' series hold %d/%d/%d/%d (count/sum/min/max), the run %d/%d/%d/%d",
			series.Count(), series.Sum(), series.Min(), series.Max(), lat.Count(), lat.Sum(), lat.Min(), lat.Max())
	}
}

// TestRunConsumerSeriesKeepsEmptyIntervals: regression: an interval in
// which nothing arrived was merged into the next in the result too, so an
// outage became one long averaged interval. The series keeps zeros.
func TestRunConsumerSeriesKeepsEmptyIntervals(t *testing.T) {
	t.Parallel()
	addrs := consFakeCluster(t, "idle", 1, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	printed := 0
	res, err := RunConsumer(ctx, ConsumerSpec{Topics: []string{"idle"}, Duration: 600 * time.Millisecond,
		Interval: 100 * time.Millisecond, ClientOpts: consFakeOpts(addrs),
		OnInterval: func(measure.ConsumerInterval) { printed++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Intervals) < 4 {
		t.Fatalf("%d intervals in 600ms at 100ms: empty ones must be kept", len(res.Intervals))
	}
	for i, iv := range res.Intervals {
		if iv.Records != 0 || (i > 0 && iv.Start != res.Intervals[i-1].End) {
			t.Fatalf("interval %d: %+v; want empty, contiguous intervals", i, iv)
		}
	}
	if printed > 1 {
		t.Errorf("%d progress callbacks without records; the Apache tool prints none until records arrive", printed)
	}
}

// TestConsumerRateOverItsReading: regression: a consumer that kept pace
// with its producer showed records over its whole run (4,583 records/s for
// a 20,000 records/s producer: a 13 s run waiting for records that came
// over 3 s). The rate is now over the reading, from the first record to
// the last, as the Apache tool's fetch.nMsg.sec leaves out the group join;
// the run's length stays beside it.
func TestConsumerRateOverItsReading(t *testing.T) {
	t.Parallel()
	addrs := consFakeCluster(t, "paced", 1, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := StartConsumer(ctx, ConsumerSpec{Topics: []string{"paced"}, Records: 2000, IdleTimeout: 3 * time.Second,
		Interval: 100 * time.Millisecond, ClientOpts: consFakeOpts(addrs)})
	if err != nil {
		t.Fatal(err)
	}
	<-run.Ready()
	// The producer sends 1,000 records, then 999 more half a second later:
	// one short of the 2,000 asked, so the consumer then waits out its 3 s
	// idle timeout, as one keeping pace with a producer waits for more.
	consProduce(t, addrs, "paced", 1000)
	pause := time.NewTimer(500 * time.Millisecond) // the producer's pace, not a synchronisation
	<-pause.C
	consProduce(t, addrs, "paced", 999)
	res, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 1999 || res.Reason != StopIdle {
		t.Fatalf("consumed %d (%s), want 1999 and the idle timeout", res.Records, res.Reason)
	}
	// The rate the result gives (ConsumerSummary) is over Reading.
	duration := res.End.Sub(res.Start).Seconds()
	lifetime, rate := float64(res.Records)/duration, measure.PerSecond(res.Records, res.Reading())
	if rate < 2*lifetime {
		t.Fatalf("records/s %.0f over a %.2f s run (%.0f over the whole run): want the rate over the reading, not the waits", rate, duration, lifetime)
	}
}
