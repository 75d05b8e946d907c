package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload"
)

// TestRoundTripHeaderNames: the plan's dry run names the header the
// engine stamps.
func TestRoundTripHeaderNames(t *testing.T) {
	t.Parallel()
	if plan.RoundTripHeader != workload.RoundTripHeader {
		t.Errorf("plan says %q, the engine stamps %q", plan.RoundTripHeader, workload.RoundTripHeader)
	}
}

// dropService is a service around Kafka for a test: it reads in from the
// start and writes every record, headers included, to out, except every
// 10th it reads. It runs until the test ends, which waits for it.
func dropService(t *testing.T, bootstrap, in, out string) {
	testService(t, bootstrap, in, out, 10, 0, 0)
}

// serviceTopics creates a service's input and output topics, 2
// partitions each, before the service starts reading them.
func serviceTopics(t *testing.T, ctx context.Context, bootstrap, in, out string) {
	t.Helper()
	adm, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	created, err := kadm.NewClient(adm).CreateTopics(ctx, 2, 1, nil, in, out)
	if err == nil {
		err = created.Error()
	}
	if err != nil {
		t.Fatalf("create %s and %s: %v", in, out, err)
	}
}

// testService is dropService dropping every dropEvery-th record (0:
// none), and stopping for pause once it has read pauseAfter records.
func testService(t *testing.T, bootstrap, in, out string, dropEvery, pauseAfter int, pause time.Duration) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(in), kgo.DefaultProduceTopic(out),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(50*time.Millisecond), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer cl.Close()
		n := 0
		for ctx.Err() == nil {
			cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
				if n++; n == pauseAfter {
					select {
					case <-time.After(pause):
					case <-ctx.Done():
					}
				}
				if dropEvery > 0 && n%dropEvery == 0 {
					return
				}
				cl.Produce(ctx, &kgo.Record{Key: r.Key, Value: r.Value, Headers: r.Headers}, nil)
			})
		}
	}()
}

// TestPlanRoundTrip runs a round-trip plan on a real broker against a
// service that drops every 10th record: 10% missing after the reply
// timeout, none duplicated or unmatched, and the table in summary.md.
func TestPlanRoundTrip(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	in, out := testTopic(t), testTopic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	serviceTopics(t, ctx, bootstrap, in, out)
	dropService(t, bootstrap, in, out)
	text := fmt.Sprintf(`name: round-trip
cluster: {bootstrap: "%s"}
topics: [{name: %s, existing: reuse}, {name: %s, existing: reuse}]
workloads:
  - {name: service, type: round-trip, topic: %[2]s, reply_topic: %[3]s, reply_timeout: 3s, records: 1000, rate: 500/s, message: {size: 100}}
`, bootstrap, in, out)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(ctx, p, scs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := doc.Plan.Scenarios[0].Repeats[0].Workloads[0]
	s, ok := w.Sections[workload.RoundTripSectionName].(*workload.RoundTripSection)
	if !ok {
		t.Fatalf("sections %v: no round trip", w.Sections)
	}
	t.Logf("acked %d matched %d missing %d duplicated %d unmatched %d; p50 %d µs, p99 %d µs, max %d µs; %.0f outputs/s",
		s.Acked, s.Matched, s.Missing, s.Duplicated, s.Unmatched, s.Latency.Quantile(0.5), s.Latency.Quantile(0.99), s.Latency.Max(), s.OutputsPerSecond())
	if s.Acked != 1000 || s.Matched != 900 || s.Missing != 100 || s.Duplicated != 0 || s.Unmatched != 0 {
		t.Errorf("acked %d matched %d missing %d duplicated %d unmatched %d, want 1000, 900, 100 (10%%), 0, 0",
			s.Acked, s.Matched, s.Missing, s.Duplicated, s.Unmatched)
	}
	if s.Latency.Count() != 900 || s.Latency.Min() <= 0 || s.OutputsPerSecond() <= 0 {
		t.Errorf("latency of %d outputs from %d µs, %v outputs/s; want 900 positive, a rate", s.Latency.Count(), s.Latency.Min(), s.OutputsPerSecond())
	}
	dir := t.TempDir()
	if err := report.WriteAll(dir, doc); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Round trips") || !strings.Contains(string(md), "| round-trip | service | 1 | 1000 | 900 | 100 | 0 | 0 |") {
		t.Errorf("summary.md has no round-trip row of 900 matched, 100 missing:\n%s", md)
	}
}

// TestPlanRoundTripServicePaused: a service that stops for 10 s mid-run
// shows as a latency spike of the records that waited for it, and none
// missing once it resumes (the reply timeout outlasts the stop).
func TestPlanRoundTripServicePaused(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	in, out := testTopic(t), testTopic(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	serviceTopics(t, ctx, bootstrap, in, out)
	const pause = 10 * time.Second
	testService(t, bootstrap, in, out, 0, 300, pause)
	text := fmt.Sprintf(`name: round-trip
cluster: {bootstrap: "%s"}
topics: [{name: %s, existing: reuse}, {name: %s, existing: reuse}]
workloads:
  - {name: service, type: round-trip, topic: %[2]s, reply_topic: %[3]s, reply_timeout: 20s, records: 1000, rate: 500/s, message: {size: 100}}
`, bootstrap, in, out)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	doc, err := Run(ctx, p, scs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := doc.Plan.Scenarios[0].Repeats[0].Workloads[0]
	s, ok := w.Sections[workload.RoundTripSectionName].(*workload.RoundTripSection)
	if !ok {
		t.Fatalf("sections %v: no round trip", w.Sections)
	}
	t.Logf("matched %d missing %d; p50 %d µs, p99 %d µs, max %d µs", s.Matched, s.Missing, s.Latency.Quantile(0.5), s.Latency.Quantile(0.99), s.Latency.Max())
	if s.Acked != 1000 || s.Matched != 1000 || s.Missing != 0 || s.Duplicated != 0 {
		t.Errorf("acked %d matched %d missing %d duplicated %d, want all 1000 matched once", s.Acked, s.Matched, s.Missing, s.Duplicated)
	}
	// The records sent while it stopped waited for it: the longest at
	// least most of the stop; the first ones before it did not.
	if max := time.Duration(s.Latency.Max()) * time.Microsecond; max < pause-3*time.Second || s.Latency.Min() > int64(pause/time.Microsecond/2) {
		t.Errorf("round trips from %d µs to %s, want a spike near the %s stop above quick ones", s.Latency.Min(), max, pause)
	}
}
