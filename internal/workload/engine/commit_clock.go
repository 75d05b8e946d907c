package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/twmb/franz-go/pkg/kgo"
)

// CommitClock carries when each transaction's commit was acknowledged
// from the transactional producers of a topic to its read_committed
// readers in the same process, so that a reader can time each record's
// commit-to-visible delay: its first sight of the record minus its
// transaction's commit acknowledgement. Records are found by their
// offsets: a producer batch's records have consecutive offsets, so a
// transaction is a few spans per partition, and spans never overlap.
type CommitClock struct {
	mu    sync.Mutex
	spans map[TopicPartition][]commitSpan // sorted by lo
}

type commitSpan struct {
	lo, hi int64 // offsets, inclusive
	at     time.Time
}

// NewCommitClock returns an empty clock.
func NewCommitClock() *CommitClock {
	return &CommitClock{spans: map[TopicPartition][]commitSpan{}}
}

// keepSpans bounds how long a commit is remembered: a reader further
// behind its producers than this finds no commit for its records, and
// counts them as unattributed rather than holding every offset of a long
// run.
const keepSpans = 5 * time.Minute

// Committed records that the spans of a transaction were committed at at.
func (c *CommitClock) Committed(spans map[TopicPartition][]commitSpan, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for tp, ss := range spans {
		list := c.spans[tp]
		// Forget spans too old to be asked for (they sit at the front once
		// offsets only grow).
		drop := 0
		for drop < len(list) && at.Sub(list[drop].at) > keepSpans {
			drop++
		}
		list = list[drop:]
		for _, s := range ss {
			s.at = at
			i, _ := slices.BinarySearchFunc(list, s.lo, func(x commitSpan, lo int64) int { return cmp.Compare(x.lo, lo) })
			list = slices.Insert(list, i, s)
		}
		c.spans[tp] = list
	}
}

// commitOf is when the transaction holding the record at offset in tp
// was committed, if a producer said so after since (a commit before it is
// of another repeat's records, on a topic made again).
func (c *CommitClock) commitOf(tp TopicPartition, offset int64, since time.Time) (time.Time, bool) {
	list := c.spans[tp]
	i, found := slices.BinarySearchFunc(list, offset, func(x commitSpan, off int64) int { return cmp.Compare(x.lo, off) })
	if !found {
		i--
	}
	if i < 0 || offset > list[i].hi || list[i].at.Before(since) {
		return time.Time{}, false
	}
	return list[i].at, true
}

// TxSpans collects the offsets of one client's open transaction, as its
// records are acknowledged (on franz-go's goroutines).
type TxSpans struct {
	mu    sync.Mutex
	spans map[TopicPartition][]commitSpan
}

func (t *TxSpans) Add(r *kgo.Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spans == nil {
		t.spans = map[TopicPartition][]commitSpan{}
	}
	tp := TopicPartition{r.Topic, r.Partition}
	ss := t.spans[tp]
	if n := len(ss); n > 0 && ss[n-1].hi+1 == r.Offset {
		ss[n-1].hi = r.Offset
		return
	}
	t.spans[tp] = append(ss, commitSpan{lo: r.Offset, hi: r.Offset})
}

// Take returns the spans collected and starts over.
func (t *TxSpans) Take() map[TopicPartition][]commitSpan {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.spans
	t.spans = nil
	return s
}

// VisibleSectionName is the name the commit-to-visible section is
// registered under.
const VisibleSectionName = "commit_to_visible"

// VisibleDelay is a read_committed reader's commit-to-visible delays (µs):
// each transactional record's first sight by the reader minus its
// transaction's commit acknowledgement at the producer. A record can be
// seen before the acknowledgement reaches the producer (the broker writes
// the commit markers before it answers): those delays are negative,
// counted in Delay's negative count and left out of its percentiles.
// Unattributed records are transactional ones whose commit the reader
// never learned (a producer of another process, or one not in the plan).
type VisibleDelay struct {
	Delay        measure.Histogram `json:"delay"`
	Unattributed int64             `json:"unattributed,omitempty"`
}

func init() {
	measure.RegisterSection(VisibleSectionName, func() measure.Section { return &VisibleDelay{} })
}

// Add merges another reader's (or worker's, or repeat's) delays.
func (v *VisibleDelay) Add(other measure.Section) error {
	o, err := measure.AddSection[*VisibleDelay](other)
	if err != nil {
		return err
	}
	v.Delay.Merge(&o.Delay)
	v.Unattributed += o.Unattributed
	return nil
}

// Table shows the delays as a row of the reports' table.
func (v *VisibleDelay) Table() measure.SectionTable {
	d := &v.Delay
	ms := func(us int64) string { return fmt.Sprintf("%.1f", float64(us)/1000) }
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	row := []string{count(d.Count() + d.Negative()), "–", "–", "–", count(d.Negative()), count(v.Unattributed)}
	if d.Count() > 0 {
		row[1], row[2], row[3] = ms(d.Quantile(0.50)), ms(d.Quantile(0.99)), ms(d.Max())
	}
	return measure.SectionTable{
		Title:   "Commit to visible",
		Columns: []string{"records", "p50 ms", "p99 ms", "max ms", "read before the commit's answer", "of no known commit"},
		Row:     row,
		Note:    "A read_committed reader's first read of each committed record minus the moment its transaction's commit was acknowledged to the producer. A record read before the producer heard the answer (the broker writes the commit markers, then answers) is counted apart, not in the percentiles; records of no known commit were written by producers outside the plan, or read more than 5 minutes after their commit.",
	}
}

// VisibleReader times one reader client's records against the clock.
// Records seen before their commit is known wait in early, and are timed
// (negatively) once the reader ends.
type VisibleReader struct {
	Clock *CommitClock
	Since time.Time
	delay VisibleDelay
	early []earlySight
}

type earlySight struct {
	tp     TopicPartition
	offset int64
	at     time.Time
}

// Seen times a partition's records read at now: one lock per batch.
func (v *VisibleReader) Seen(tp TopicPartition, recs []*kgo.Record, now time.Time) {
	v.Clock.mu.Lock()
	defer v.Clock.mu.Unlock()
	for _, r := range recs {
		if !isTransactional(r) {
			continue
		}
		if at, ok := v.Clock.commitOf(tp, r.Offset, v.Since); ok {
			v.delay.Delay.Record(now.Sub(at).Microseconds())
			continue
		}
		if len(v.early) < maxEarly {
			v.early = append(v.early, earlySight{tp, r.Offset, now})
		} else {
			v.delay.Unattributed++
		}
	}
}

// isTransactional reports whether a record was written in a transaction
// (a variable: kgo's attributes cannot be set outside kgo, so tests mark
// records their own way).
var isTransactional = func(r *kgo.Record) bool { return r.Attrs.IsTransactional() }

// maxEarly bounds the sights kept while their commit is unknown.
const maxEarly = 1 << 20

// Finish times the early sights against the commits known now.
func (v *VisibleReader) Finish() *VisibleDelay {
	v.Clock.mu.Lock()
	defer v.Clock.mu.Unlock()
	for _, e := range v.early {
		if at, ok := v.Clock.commitOf(e.tp, e.offset, v.Since); ok {
			v.delay.Delay.Record(e.at.Sub(at).Microseconds())
		} else {
			v.delay.Unattributed++
		}
	}
	v.early = nil
	return &v.delay
}
