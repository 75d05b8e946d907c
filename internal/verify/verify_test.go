package verify

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// Unit tests against franz-go's in-process cluster; cmd/kbench's fault
// tests check the same against a real 3-broker cluster with a killed
// leader.

func fake(t *testing.T, partitions int32, topic string) []kgo.Opt {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
}

// TestProducerVerifiedClean runs the real producer engine with the
// ledger's tracker: every record acknowledged is read back once, in order.
func TestProducerVerifiedClean(t *testing.T) {
	opts := fake(t, 3, "v")
	l := New(true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reader, err := StartReader(ctx, l, opts, "v", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	values, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := produce.RunProducer(ctx, produce.ProducerSpec{
		Topic: "v", Clients: 2, Records: 3000, Values: values,
		Headers:    []kgo.RecordHeader{{Key: "static", Value: []byte("x")}},
		ClientOpts: func(int) []kgo.Opt { return opts },
		Tracker:    l.Tracker,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, l, opts, "v", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Acked != res.Acked || rep.Acked != 3000 || rep.Read != 3000 || !rep.Clean() {
		t.Fatalf("report %+v, producer acked %d; want 3000 acked and read, nothing wrong", rep, res.Acked)
	}
	if len(rep.Partitions) != 3 {
		t.Errorf("%d partitions judged, want 3", len(rep.Partitions))
	}
	// The live reader catches up: nothing stays unseen.
	deadline := time.Now().Add(10 * time.Second)
	for l.Unseen() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	points := reader.Stop()
	if l.Unseen() != 0 || len(points) == 0 {
		t.Fatalf("unseen %d after the run, %d samples; want 0 and some", l.Unseen(), len(points))
	}
}

// TestCheckReadsPastTransactionMarkers guards a transactional plan's
// verification, which stalled for its whole idle bound at "offset 1857 of
// 1858": the end offset counts the last commit marker, a control record a
// consumer never hands on, so the read-back never reached it.
func TestCheckReadsPastTransactionMarkers(t *testing.T) {
	opts := fake(t, 2, "tx")
	l := New(true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	values, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := produce.RunProducer(ctx, produce.ProducerSpec{
		Topic: "tx", Clients: 1, Records: 500, Values: values, TransactionRecords: 100,
		ClientOpts: func(int) []kgo.Opt { return append(opts, kgo.TransactionalID("kbench-verify-tx")) },
		Tracker:    l.Tracker,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Hang guard, far above the read: the regression waited it out.
	began := time.Now()
	rep, err := Check(ctx, l, opts, "tx", 20*time.Second)
	if err != nil {
		t.Fatalf("Check: %v (after %s)", err, time.Since(began).Round(time.Millisecond))
	}
	if rep.Acked != res.Acked || rep.Read != 500 || !rep.Clean() {
		t.Fatalf("report %+v, producer acked %d; want 500 acked and read, nothing wrong", rep, res.Acked)
	}
}

// TestCheckTransactionsThatAbort: a producer aborting a share of its
// transactions on purpose; the read-back, as a read_committed consumer,
// reads every committed record once and none of the aborted ones, and no
// aborted record counts as lost. A read_uncommitted read of the same topic
// sees the aborted records too.
func TestCheckTransactionsThatAbort(t *testing.T) {
	opts := fake(t, 2, "ab")
	l := New(true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	values, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := produce.RunProducer(ctx, produce.ProducerSpec{
		Topic: "ab", Clients: 2, Records: 2000, Values: values,
		TransactionRecords: 50, TransactionAbortRatio: 0.3, TransactionSeed: 7,
		ClientOpts: func(i int) []kgo.Opt {
			return append(append([]kgo.Opt(nil), opts...), kgo.TransactionalID(fmt.Sprintf("kbench-verify-ab-%d", i)))
		},
		Tracker: l.Tracker,
	})
	if err != nil {
		t.Fatal(err)
	}
	tx := res.Transactions
	if tx == nil || tx.Aborted == 0 || tx.Committed == 0 || tx.Failed != 0 || tx.CommittedRecords+tx.AbortedRecords != 2000 {
		t.Fatalf("transactions %+v; want some committed and some aborted, 2000 records in all", tx)
	}
	rep, err := Check(ctx, l, opts, "ab", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Transactional() || rep.Read != tx.CommittedRecords || rep.Acked != tx.CommittedRecords || rep.Aborted != tx.AbortedRecords || rep.AbortedRead != 0 || !rep.Clean() {
		t.Fatalf("report %+v; want the %d committed records read and owed, the %d aborted ones neither", rep, tx.CommittedRecords, tx.AbortedRecords)
	}
	if all := readAll(t, opts, "ab"); all != 2000 {
		t.Errorf("a read_uncommitted read found %d records, want all 2000 (aborted ones too)", all)
	}
}

// readAll counts the records a read_uncommitted consumer reads from topic.
func readAll(t *testing.T, opts []kgo.Opt, topic string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var n int64
	for quiet := 0; quiet < 5; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			quiet++
		}
		n += int64(fs.NumRecords())
	}
	return n
}

// TestCheckFindsEachProblem writes records by hand to make each problem
// once, and checks the report names each with its offsets.
func TestCheckFindsEachProblem(t *testing.T) {
	opts := fake(t, 1, "p")
	l := New(true)
	tr := l.Tracker(0)
	cl, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic("p"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	produce := func(seq int64) *kgo.Record {
		r := &kgo.Record{Value: []byte("v")}
		tr.Stamp(r, seq)
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// seq 0 and 2 acknowledged normally (offsets 0, 1); seq 1 written
	// after seq 2 (offset 2): out of order; seq 2 written again (offset 3):
	// a duplicate; seq 3 written but its send reported failed (offset 4):
	// unacknowledged; seq 4 acknowledged at offset 99 but never written:
	// lost.
	for _, seq := range []int64{0, 2} {
		r := produce(seq)
		tr.Done(r, seq, nil)
	}
	r1 := produce(1)
	tr.Done(r1, 1, nil)
	again := &kgo.Record{Value: []byte("v"), Headers: nil}
	tr.Stamp(again, 2)
	if err := cl.ProduceSync(ctx, again).FirstErr(); err != nil {
		t.Fatal(err)
	}
	r3 := produce(3)
	tr.Done(r3, 3, errors.New("timed out"))
	ghost := &kgo.Record{Partition: 0, Offset: 99}
	tr.Stamp(ghost, 4)
	tr.Done(ghost, 4, nil)

	rep, err := Check(ctx, l, opts, "p", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := [6]int64{rep.Acked, rep.Read, rep.Lost, rep.Duplicated, rep.OutOfOrder, rep.Unacknowledged}
	if want := [6]int64{4, 5, 1, 1, 1, 1}; got != want {
		t.Fatalf("acked, read, lost, duplicated, out of order, unacknowledged = %v, want %v", got, want)
	}
	p := rep.Partitions[0]
	if len(p.FirstLost) != 1 || p.FirstLost[0] != 99 || p.FirstOutOfOrder[0] != 2 || p.FirstDuplicated[0] != 3 || p.FirstUnacknowledged[0] != 4 {
		t.Fatalf("offsets %+v; want lost 99, out of order 2, duplicated 3, unacknowledged 4", p)
	}
}

// TestCheckSkipsOtherRuns: a reused topic holds records of earlier runs
// (and records without the header); they are not this run's.
func TestCheckSkipsOtherRuns(t *testing.T) {
	opts := fake(t, 1, "o")
	cl, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic("o"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	earlier := New(true)
	r := &kgo.Record{Value: []byte("old")}
	earlier.Tracker(0).Stamp(r, 0)
	plain := &kgo.Record{Value: []byte("plain")}
	if err := cl.ProduceSync(ctx, r, plain).FirstErr(); err != nil {
		t.Fatal(err)
	}
	l := New(true)
	rep, err := Check(ctx, l, opts, "o", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Read != 0 || !rep.Clean() {
		t.Fatalf("report %+v; want nothing of this run read and nothing wrong", rep)
	}
}

func TestGaps(t *testing.T) {
	l := New(false)
	at := func(p int32, ms int) { l.AckAt(p, time.Duration(ms)*time.Millisecond) }
	for ms := 0; ms <= 1000; ms += 10 {
		at(0, ms)
	}
	at(1, 0)
	at(1, 400) // 400 ms without an acknowledgement
	at(1, 410)
	gaps := l.Gaps(2000 * time.Millisecond)
	want := []Gap{
		{Partition: 0, From: 1000 * time.Millisecond, To: 2000 * time.Millisecond}, // silent until the end
		{Partition: 1, From: 0, To: 400 * time.Millisecond},
		{Partition: 1, From: 410 * time.Millisecond, To: 2000 * time.Millisecond},
	}
	if len(gaps) != len(want) {
		t.Fatalf("gaps %v, want %v", gaps, want)
	}
	for i := range want {
		if gaps[i] != want[i] {
			t.Errorf("gap %d = %v, want %v", i, gaps[i], want[i])
		}
	}
}

func TestMergePointsKeepsPeaks(t *testing.T) {
	var ps []Point
	for i := 0; i < 10; i++ {
		ps = append(ps, Point{At: time.Duration(i) * time.Second, Unseen: int64(i % 3)})
	}
	got := mergePoints(append([]Point(nil), ps...)) // it merges in place
	if len(got) != 5 {
		t.Fatalf("%d points, want 5", len(got))
	}
	for i, p := range got {
		want := max(ps[2*i].Unseen, ps[2*i+1].Unseen)
		if p.Unseen != want || p.At != ps[2*i+1].At {
			t.Errorf("point %d = %+v, want unseen %d at %s", i, p, want, ps[2*i+1].At)
		}
	}
}
