package engine

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestCommitClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tp := TopicPartition{"t", 0}
	c := NewCommitClock()
	// Two clients' transactions interleave in one partition: each batch's
	// offsets are its own span.
	var a, b TxSpans
	for _, off := range []int64{0, 1, 2, 6, 7} {
		a.Add(&kgo.Record{Topic: "t", Offset: off})
	}
	for _, off := range []int64{3, 4, 5} {
		b.Add(&kgo.Record{Topic: "t", Offset: off})
	}
	c.Committed(b.Take(), t0.Add(time.Second))
	c.Committed(a.Take(), t0.Add(2*time.Second))
	if got := a.Take(); got != nil {
		t.Errorf("spans left after take: %v", got)
	}
	tests := []struct {
		offset int64
		since  time.Time
		want   time.Time
		ok     bool
	}{
		{0, t0, t0.Add(2 * time.Second), true},
		{2, t0, t0.Add(2 * time.Second), true},
		{4, t0, t0.Add(time.Second), true},
		{7, t0, t0.Add(2 * time.Second), true},
		{8, t0, time.Time{}, false},                       // not committed (yet)
		{4, t0.Add(90 * time.Minute), time.Time{}, false}, // another repeat's commit
	}
	for _, tt := range tests {
		at, ok := c.commitOf(tp, tt.offset, tt.since)
		if ok != tt.ok || !at.Equal(tt.want) {
			t.Errorf("commitOf(%d) = %v %v, want %v %v", tt.offset, at, ok, tt.want, tt.ok)
		}
	}
	// A reader that saw offsets 3 and 8 before their commits were known
	// times them once it ends: 8's commit arrives after it was seen.
	r := &VisibleReader{Clock: c, Since: t0}
	seen := t0.Add(1500 * time.Millisecond)
	recs := []*kgo.Record{{Offset: 3, Key: []byte("tx")}, {Offset: 8, Key: []byte("tx")}, {Offset: 9}}
	defer func(f func(*kgo.Record) bool) { isTransactional = f }(isTransactional)
	isTransactional = func(r *kgo.Record) bool { return string(r.Key) == "tx" }
	r.Seen(tp, recs, seen)
	var late TxSpans
	late.Add(&kgo.Record{Topic: "t", Offset: 8})
	c.Committed(late.Take(), t0.Add(1600*time.Millisecond))
	d := r.Finish()
	if d.Delay.Count() != 1 || d.Delay.Max() != 500_000 || d.Delay.Negative() != 1 || d.Unattributed != 0 {
		t.Errorf("delays: %d timed (max %d µs), %d early, %d unattributed; want 1 of 500 ms, 1 early (the non-transactional record not timed)",
			d.Delay.Count(), d.Delay.Max(), d.Delay.Negative(), d.Unattributed)
	}
	// Old commits are forgotten as new ones come.
	var next TxSpans
	next.Add(&kgo.Record{Topic: "t", Offset: 100})
	c.Committed(next.Take(), t0.Add(2*time.Second+keepSpans+time.Second))
	if n := len(c.spans[tp]); n != 1 {
		t.Errorf("%d spans kept, want only the new one", n)
	}
}
