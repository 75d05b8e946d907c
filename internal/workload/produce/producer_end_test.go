package produce

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// silentAfter is a one-broker in-process cluster with topic "t" that stops
// answering produce requests after the first `after`, as a paused or dead
// broker does, until the test ends.
func silentAfter(t *testing.T, after int64) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	hold := kfakehold.New(t, c)
	var n atomic.Int64
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if n.Add(1) > after {
			hold.UntilEnd()
		}
		return nil, nil, false
	})
	return c.ListenAddrs()
}

// TestRunProducerEndsWithinItsBound: regression: once sending stopped,
// the run waited for outstanding records as long as the delivery timeout
// allowed (2 minutes by default) whatever ended it: a 30 s run whose broker
// died at 10 s ended after 131 s and divided its records by all of it, and
// a transactional one waited out its commit and then the same bound again
// to flush. Now each end has its bound (producer_end.go): the drain after a
// timed run, the commit's own bound then nothing more, the interrupt's, and
// none after an abort; the rates divide by the sending time, and what was
// cut off is unresolved.
func TestRunProducerEndsWithinItsBound(t *testing.T) {
	t.Parallel()
	const grace = 2 * closeGrace // close, then the last promises
	tests := []struct {
		name string
		// tx: transactions committed every 100 ms, with idempotence
		// (franz-go cannot cancel their records in flight).
		tx        bool
		records   int64
		duration  time.Duration
		interrupt time.Duration // ctx cancelled this long after the start
		abort     time.Duration // Abort done this long after the start
		bound     time.Duration // from the start, before grace
	}{
		// Sending stops at 600 ms; the 400 ms drain, then cut off.
		{name: "timed", duration: 600 * time.Millisecond, bound: time.Second},
		// The commit at about 100 ms has the delivery timeout plus 5 s
		// (6 s); then the run ends without a second wait.
		{name: "transactional", tx: true, records: 100_000, bound: 6200 * time.Millisecond},
		// The same commit, interrupted at 1 s: the interrupt's drain more.
		{name: "transactional interrupted", tx: true, records: 100_000, interrupt: time.Second, bound: time.Second + DefaultInterruptDrain},
		// Interrupted at 500 ms with a 10 s interrupt drain, aborted at
		// 700 ms: nothing more is waited for.
		{name: "aborted", records: 100_000, interrupt: 500 * time.Millisecond, abort: 700 * time.Millisecond, bound: 700 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seeds := silentAfter(t, 5)
			spec := testSpec(t, seeds, "t")
			spec.Rate, spec.Records, spec.Duration = 2000, tt.records, tt.duration
			spec.Drain = 400 * time.Millisecond
			opts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(time.Millisecond),
				kgo.RecordDeliveryTimeout(time.Second), kgo.RequestTimeoutOverhead(time.Second)}
			if tt.tx {
				spec.TransactionDuration = 100 * time.Millisecond
				opts = append(opts, kgo.TransactionalID("tx-"+tt.name))
			} else {
				opts = append(opts, kgo.AllowIdempotentProduceCancellation())
			}
			spec.ClientOpts = func(int) []kgo.Opt { return opts }
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if tt.interrupt > 0 {
				interrupt, stop := context.WithCancel(ctx)
				time.AfterFunc(tt.interrupt, stop)
				ctx = interrupt
			}
			if tt.abort > 0 {
				spec.FlushTimeout = 10 * time.Second
				abort, stop := context.WithCancel(context.Background())
				time.AfterFunc(tt.abort, stop)
				spec.Abort = abort
			}
			start := time.Now()
			res, err := RunProducer(ctx, spec)
			took := time.Since(start)
			if took > tt.bound+grace {
				t.Fatalf("ended %v after the start; bound %v + %v (err %v)", took, tt.bound, grace, err)
			}
			if res == nil {
				t.Fatalf("no result (err %v)", err)
			}
			if res.Unresolved == 0 || res.Failed < res.Unresolved || res.Acked == 0 {
				t.Fatalf("acked %d, failed %d, unresolved %d: want the cut-off records unresolved", res.Acked, res.Failed, res.Unresolved)
			}
			if sending := res.End.Sub(res.Start); tt.duration > 0 && sending > tt.duration+100*time.Millisecond {
				t.Fatalf("rates divide by %v, the sending took %v", sending, tt.duration)
			}
			if tt.tx && (res.Transactions == nil || res.Transactions.Failed == 0) {
				t.Fatalf("transactions %+v: the commit cut off is not counted", res.Transactions)
			}
		})
	}
}

// TestRunProducerStallEndsARunOfRecords: regression: a run of a number of
// records (no duration) whose broker stopped answering kept sending as long
// as it had records, each failing only at the delivery timeout: it had no
// bound. Now no acknowledgement for its stall bound while records are
// outstanding ends it: ErrStalled, the outstanding records unresolved, the
// rest counted as not sent.
func TestRunProducerStallEndsARunOfRecords(t *testing.T) {
	t.Parallel()
	seeds := silentAfter(t, 5)
	spec := testSpec(t, seeds, "t")
	// The stall bound must outlast the first answers (over 500 ms on one
	// CPU under -race, which then acknowledged nothing before the stall),
	// and the delivery timeout the stall bound, so the stall ends the run.
	spec.Rate, spec.Records, spec.Stall = 2000, 100_000, 2*time.Second
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(time.Millisecond),
		kgo.RecordDeliveryTimeout(4 * time.Second), kgo.RequestTimeoutOverhead(4 * time.Second),
		kgo.AllowIdempotentProduceCancellation()}
	spec.ClientOpts = func(int) []kgo.Opt { return opts }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// ctx's minute is a hang guard, not a measurement. What the bug did is
	// counted instead of timed: before, all 100,000 records were sent (50 s
	// at 2000/s); now the stall ends the run after a few thousand. Half
	// the records unsent means it ended within 25 s of sending, which
	// holds on a machine many times slower than the 2 s bound needs.
	res, err := RunProducer(ctx, spec)
	if res != nil && res.NotSent < spec.Records/2 {
		t.Fatalf("sent %d of %d records after the broker fell silent: the stall did not end the run (err %v)", spec.Records-res.NotSent, spec.Records, err)
	}
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "delivery.timeout.ms") {
		t.Fatalf("err %v, want ErrStalled saying how to wait longer", err)
	}
	if res == nil || res.Acked == 0 || res.Unresolved == 0 || res.NotSent == 0 {
		t.Fatalf("result %+v: want acknowledged, unresolved and unsent records", res)
	}
	if got := res.Acked + res.Failed + res.NotSent; got != spec.Records {
		t.Fatalf("acked %d + failed %d + not sent %d = %d, want the %d records", res.Acked, res.Failed, res.NotSent, got, spec.Records)
	}
}

// TestRunProducerStallWaitsWhileIdle: a run of records at a slow rate has
// nothing outstanding between its records: the stall bound must not end it.
// The idle gap (2 s) is twice the stall bound, and the bound is many times
// what an answer from kfake takes even under -race on a loaded machine (a
// 300 ms bound was overrun by one answer taking 330 ms there, which is a
// slow answer, not the idle time this test is about).
func TestRunProducerStallWaitsWhileIdle(t *testing.T) {
	t.Parallel()
	seeds := silentAfter(t, 1000)
	spec := testSpec(t, seeds, "t")
	spec.Rate, spec.Records, spec.Stall = 0.5, 3, time.Second
	res, err := RunProducer(context.Background(), spec)
	if err != nil || res.Acked != 3 || res.NotSent != 0 {
		t.Fatalf("acked %d, not sent %d, err %v: want all 3 records", res.Acked, res.NotSent, err)
	}
}
