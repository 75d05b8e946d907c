package verify

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCheckLatestPerKey: on a compacted topic only each key's newest
// acknowledged value is owed. Older values are counted (the cleaner had
// not removed them), not lost; a newest value missing is lost; one that
// another writer's later record of the key replaced (a tombstone written
// by hand) is named as replaced, not hidden and not lost.
func TestCheckLatestPerKey(t *testing.T) {
	opts := fake(t, 1, "c")
	l := New(true)
	l.JudgeLatestPerKey()
	tr := l.Tracker(0)
	cl, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic("c"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	seq := int64(0)
	produce := func(key string) {
		r := &kgo.Record{Key: []byte(key), Value: []byte("v")}
		tr.Stamp(r, seq)
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		tr.Done(r, seq, nil)
		seq++
	}
	// a: 3 values, newest read; b: 2 values, then another writer's
	// tombstone; c: its newest acknowledged at offset 99, never written.
	for _, k := range []string{"a", "b", "a", "b", "a"} {
		produce(k)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte("b")}).FirstErr(); err != nil { // the tombstone
		t.Fatal(err)
	}
	ghost := &kgo.Record{Key: []byte("c"), Partition: 0, Offset: 99}
	tr.Stamp(ghost, seq)
	tr.Done(ghost, seq, nil)
	seq++
	// d: acknowledged at offset 0 but gone (as if the cleaner removed it
	// under another writer's later record of d, written here).
	gone := &kgo.Record{Key: []byte("d"), Partition: 0, Offset: 0}
	tr.Stamp(gone, seq)
	tr.Done(gone, seq, nil)
	if err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte("d"), Value: []byte("theirs")}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	rep, err := CheckCompacted(ctx, l, opts, "c", 10*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := [6]int64{rep.Keys, rep.LatestLost, rep.Replaced, rep.Superseded, rep.Lost, rep.Foreign}
	// Superseded: a's two older values and b's first (b's newest is
	// present too: the tombstone only follows it, nothing was cleaned).
	if want := [6]int64{4, 1, 1, 3, 1, 2}; got != want {
		t.Errorf("keys, latest lost, replaced, superseded, lost, foreign = %v, want %v", got, want)
	}
	if !rep.LatestPerKey {
		t.Error("the report does not say it judged the latest value per key")
	}
}
