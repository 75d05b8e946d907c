package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
)

// DefaultTransactionDuration is how often a transactional client commits
// when the spec says neither TransactionDuration nor TransactionRecords:
// every 3 s, as the Apache tool does by default.
const DefaultTransactionDuration = 3 * time.Second

// txn is one client's transactions, kept by its sending goroutine: when to
// commit (after every duration, or records, whichever comes first) and what
// the commits took. A commit is the flush of the transaction's records and
// EndTransaction: the wait a transactional application sees.
type txn struct {
	every   time.Duration // 0: not by time
	records int64         // 0: not by count
	begun   time.Time     // of the open transaction; zero: none open
	count   int64         // records in the open transaction

	commits   *measure.Histogram // commit latency, µs
	failed    int64              // commits that failed or were cut off
	committed int64
	wait      time.Duration // the sender's time in commits: the cluster's
}

func newTxn(every time.Duration, records int64) txn {
	t := txn{every: every, records: records}
	if t.on() {
		t.commits = measure.NewHistogram()
	}
	return t
}

// on reports whether the client wraps its records in transactions.
func (t *txn) on() bool { return t.every > 0 || t.records > 0 }

// open reports whether a transaction has begun and not ended.
func (t *txn) open() bool { return !t.begun.IsZero() }

// due reports whether the open transaction should commit now.
func (t *txn) due() bool {
	return (t.records > 0 && t.count >= t.records) || (t.every > 0 && time.Since(t.begun) >= t.every)
}

func (c *producerClient) begin() error {
	if err := c.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	c.tx.begun, c.tx.count = time.Now(), 0
	return nil
}

// commit flushes the open transaction's records and commits it, timing
// both; ctx bounds the whole.
func (c *producerClient) commit(ctx context.Context) error {
	t0 := time.Now()
	c.tx.begun = time.Time{}
	err := c.cl.Flush(ctx)
	if err != nil {
		err = fmt.Errorf("flush before commit: %w", err)
	} else if err = c.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		err = fmt.Errorf("commit transaction: %w", err)
	}
	took := time.Since(t0)
	if err != nil && ctx.Err() != nil {
		// Cut off by a bound, not refused by the cluster: say which.
		err = fmt.Errorf("transaction not committed: the cluster had not answered after %s (%s): %w", took.Round(time.Millisecond), c.commitBound(), err)
	}
	c.tx.wait += took
	if err != nil {
		c.tx.failed++
		return err
	}
	c.tx.committed++
	c.tx.commits.Record(took.Microseconds())
	return nil
}

// commitBound names what cut a commit off: the run's deadline once sending
// stopped, or the commit's own bound.
func (c *producerClient) commitBound() string {
	if c.end.ctx.Err() != nil {
		return "the run's wait for outstanding records ended"
	}
	return fmt.Sprintf("the commit bound: delivery.timeout.ms + %s", drainMargin)
}
