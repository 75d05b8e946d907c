package produce

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	first   int64         // the sequence number of its first record
	count   int64         // records in the open transaction
	abort   float64       // the share of transactions aborted on purpose
	rng     *rand.Rand    // draws which (nil: none)

	commits          *measure.Histogram // commit latency, µs
	failed           int64              // commits or aborts that failed or were cut off
	committed        int64
	aborted          int64
	committedRecords int64
	abortedRecords   int64
	wait             time.Duration // the sender's time in commits: the cluster's
}

func newTxn(every time.Duration, records int64) txn {
	t := txn{every: every, records: records}
	if t.on() {
		t.commits = measure.NewHistogram()
	}
	return t
}

// aborting makes client i abort the share ratio of its transactions, drawn
// from seed: the same seed aborts the same transactions.
func (t txn) aborting(ratio float64, seed uint64, i int) txn {
	if ratio > 0 {
		t.abort = ratio
		t.rng = rand.New(rand.NewPCG(seed, uint64(i)+0x7478)) // "tx"
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

// begin opens a transaction whose first record is sequence number first.
func (c *producerClient) begin(first int64) error {
	if err := c.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	c.tx.begun, c.tx.first, c.tx.count = time.Now(), first, 0
	return nil
}

// commit flushes the open transaction's records and commits it, timing
// both; ctx bounds the whole. A transaction drawn for abort
// (TransactionAbortRatio) is flushed and aborted instead, untimed: the
// commit latency is of commits.
func (c *producerClient) commit(ctx context.Context) error {
	t0 := time.Now()
	c.tx.begun = time.Time{}
	abort := c.tx.rng != nil && c.tx.rng.Float64() < c.tx.abort
	end, verb, done := kgo.TryCommit, "commit", "committed"
	if abort {
		end, verb, done = kgo.TryAbort, "abort", "aborted"
	}
	c.committing.Store(max(c.tx.count, 1))
	defer c.committing.Store(0)
	err := c.cl.Flush(ctx)
	if err != nil {
		err = fmt.Errorf("flush before %s: %w", verb, err)
	} else if err = c.cl.EndTransaction(ctx, end); err != nil {
		err = fmt.Errorf("%s transaction: %w", verb, err)
	}
	took := time.Since(t0)
	if err != nil && ctx.Err() != nil {
		// Cut off by a bound, not refused by the cluster: say which.
		err = fmt.Errorf("transaction not %s: the cluster had not answered after %s (%s): %w", done, took.Round(time.Millisecond), c.commitBound(), err)
	}
	c.tx.wait += took
	switch {
	case err != nil:
		c.tx.failed++
		c.txEnded(TransactionFailed)
		return err
	case abort:
		c.tx.aborted++
		c.tx.abortedRecords += c.tx.count
		c.txEnded(TransactionAborted)
	default:
		c.tx.committed++
		c.tx.committedRecords += c.tx.count
		c.tx.commits.Record(took.Microseconds())
		if c.visible != nil {
			c.visible.Committed(c.txSpans.Take(), time.Now()) // the acknowledgement
		}
		c.txEnded(TransactionCommitted)
	}
	if c.txSpans != nil {
		c.txSpans.Take() // an aborted or failed transaction's records are never visible
	}
	return nil
}

// txEnded tells the tracker how the open transaction's records ended.
func (c *producerClient) txEnded(o TransactionOutcome) {
	if t, ok := c.tracker.(TransactionTracker); ok && c.tx.count > 0 {
		t.TransactionEnded(c.tx.first, c.tx.count, o)
	}
}

// commitBound names what cut a commit off: the run's deadline once sending
// stopped, or the commit's own bound.
func (c *producerClient) commitBound() string {
	if c.end.ctx.Err() != nil {
		return "the run's wait for outstanding records ended"
	}
	return fmt.Sprintf("the commit bound: delivery.timeout.ms + %s", drainMargin)
}
