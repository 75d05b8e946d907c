package main

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// readAll consumes a topic from the start until it has seen want records or
// the timeout passes, with the given extra consumer options.
func readAll(t *testing.T, bootstrap, topic string, want int, opts ...kgo.Opt) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for len(recs) < want && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
	}
	return recs
}

// TestProducerPerfTransactions: with --transaction-duration-ms every record
// is committed, in several transactions, and readable with read_committed.
func TestProducerPerfTransactions(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	topic := uniqueTopic(t, "tx")
	st, stdout, stderr := clusterTestState(t)
	// 4 s of sending in 200 ms transactions. A client that stalls at the
	// start sends its late records at once, all in one transaction (as the
	// Java tool would), so the run leaves a margin for a busy machine.
	code := runKbench(t, st, "producer-perf-test", "--topic", topic, "--num-records", "20000", "--record-size", "50",
		"--throughput", "5000", "--transaction-duration-ms", "200", "--partitions", "2",
		"--bootstrap-server", bootstrap)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if final := checkProducerOutput(t, stdout.String()); final != 20000 {
		t.Fatalf("final line claims %d", final)
	}
	recs := readAll(t, bootstrap, topic, 20000, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if len(recs) != 20000 {
		t.Fatalf("read_committed sees %d records, want 20000", len(recs))
	}
	// Each commit writes a marker that takes an offset in every partition the
	// transaction touched: several transactions leave several markers.
	markers := endOffsetSum(t, bootstrap, topic) - 20000
	if markers < 4 {
		t.Fatalf("%d transaction markers: the records were not committed in several transactions", markers)
	}
}

// TestProducerPerfKeyRange: --record-key-range N gives every record a key
// among the decimal numbers 0..N-1, and uses them all.
func TestProducerPerfKeyRange(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	topic := uniqueTopic(t, "keys")
	st, stdout, stderr := clusterTestState(t)
	if code := runKbench(t, st, "producer-perf-test", "--topic", topic, "--num-records", "5000", "--payload-monotonic",
		"--throughput", "-1", "--record-key-range", "7", "--bootstrap-server", bootstrap); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	recs := readAll(t, bootstrap, topic, 5000)
	keys := map[string]bool{}
	values := map[string]bool{}
	for _, r := range recs {
		k, err := strconv.Atoi(string(r.Key))
		if err != nil || k < 0 || k >= 7 {
			t.Fatalf("key %q outside 0..6", r.Key)
		}
		keys[string(r.Key)] = true
		values[string(r.Value)] = true
	}
	if len(recs) != 5000 || len(keys) != 7 {
		t.Fatalf("%d records with %d distinct keys, want 5000 and 7", len(recs), len(keys))
	}
	// --payload-monotonic: the values are the record numbers 0..4999.
	for i := 0; i < 5000; i++ {
		if !values[strconv.Itoa(i)] {
			t.Fatalf("value %d missing: --payload-monotonic must send every record number", i)
		}
	}
}

// TestProducerPerfEndToEnd: --e2e consumes every acknowledged record and
// reports end-to-end percentiles, ordered and never negative, next to the
// publish percentiles.
func TestProducerPerfEndToEnd(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	topic := uniqueTopic(t, "e2e")
	out := t.TempDir() + "/r.json"
	st, stdout, stderr := clusterTestState(t)
	if code := runKbench(t, st, "producer-perf-test", "--topic", topic, "--num-records", "30000", "--record-size", "100",
		"--throughput", "20000", "--partitions", "3", "--e2e", "--json", out, "--bootstrap-server", bootstrap); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`(?m)^30000 records consumed end to end, \d+\.\d{2} ms avg latency`).MatchString(stdout.String()) {
		t.Fatalf("no end-to-end line:\n%s", stdout)
	}
	doc, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	e, p := doc.EndToEnd, doc.Producer.Latency
	switch {
	case e == nil || e.Count != 30000:
		t.Fatalf("end-to-end latency %+v, want 30000 values", e)
	case e.Min < 0 || !(e.P50 <= e.P99 && e.P99 <= e.P999 && e.P999 <= e.Max):
		t.Fatalf("end-to-end percentiles out of order or negative: %+v", e)
	case doc.Producer.LatencyFrom != "intended" || p.Count != 30000:
		t.Fatalf("publish latency %+v from %q", p, doc.Producer.LatencyFrom)
	}
}
