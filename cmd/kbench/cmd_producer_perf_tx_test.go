package main

import (
	"context"
	"os"
	"path/filepath"
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
	bootstrap := testkafka.Fake(t)
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
	bootstrap := testkafka.Fake(t)
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
	bootstrap := testkafka.Fake(t)
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

// TestPlanTransactions: regression: a plan producer with
// properties: {transactional.id: txa} and two clients ended its repeat with
// "producer client 0: cannot allow idempotent produce cancellation and use
// transactional IDs" and wrote nothing. Plans now behave as the drop-in
// does: one transactional id per client, commits every transaction.duration
// (3 s unless given) or transaction.records, the commit latency measured;
// every record is readable with read_committed, and each commit left its
// markers.
func TestPlanTransactions(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	tests := []struct {
		name, workload string
		// minCommits is the fewest commits the run must make, over both
		// clients: each leaves a marker in every partition it wrote to.
		minCommits int64
	}{
		{"transactional.id alone", `properties: {transactional.id: txa}`, 2},
		{"transaction duration", `properties: {transactional.id: txb}, transaction: {duration: 300ms}`, 6},
		{"transaction records", `transaction: {records: 500}`, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			topic := uniqueTopic(t, "plantx")
			planFile := filepath.Join(dir, "plan.yaml")
			if err := os.WriteFile(planFile, []byte(`name: transactions
cluster: {bootstrap: `+bootstrap+`}
topics: [{name: `+topic+`, partitions: 2}]
workloads:
  - {name: p, type: produce, topic: `+topic+`, clients: 2, message: {size: 50}, rate: 4k/s, records: 8000, `+tt.workload+`}
`), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			var stdout, stderr syncBuffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			if code := runKbench(t, st, "run", planFile, "--out", out); code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			doc, err := result.Read(filepath.Join(out, "result.json"))
			if err != nil {
				t.Fatal(err)
			}
			p := doc.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer
			if p == nil || p.Records != 8000 || p.Transactions == nil {
				t.Fatalf("producer %+v: want 8000 records in transactions", p)
			}
			tx := p.Transactions
			if tx.Committed < tt.minCommits || tx.Failed != 0 || tx.CommitLatency.Count != tx.Committed || tx.CommitLatency.Min <= 0 {
				t.Fatalf("transactions %+v: want at least %d committed, none failed, each commit timed", tx, tt.minCommits)
			}
			recs := readAll(t, bootstrap, topic, 8000, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
			if len(recs) != 8000 {
				t.Fatalf("read_committed sees %d records, want 8000", len(recs))
			}
			if markers := endOffsetSum(t, bootstrap, topic) - 8000; markers < tt.minCommits {
				t.Fatalf("%d transaction markers for %d commits", markers, tx.Committed)
			}
		})
	}
}
