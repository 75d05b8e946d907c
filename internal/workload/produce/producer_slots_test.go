package produce

import (
	"bytes"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/payload"
)

// TestSlabsGrowWithNeed: regression: every producer client cut its slots
// from 1024-slot slabs (200 KB each), so 1,000 clients at 10 records/s
// held 200 MB of slots they never used. A client that completes its
// records as it sends them cycles through two small slabs; one with many
// records outstanding grows its slabs to maxSlab; slabs freed by a burst
// are let go once they stay unused.
func TestSlabsGrowWithNeed(t *testing.T) {
	t.Parallel()
	var slow slabs
	made := map[*slab]bool{}
	prev := (*slot)(nil)
	for range 10_000 {
		sl := slow.take()
		made[sl.slab] = true
		if prev != nil {
			slow.release(prev) // acknowledged by the time the next is sent
		}
		prev = sl
	}
	held := 0
	for b := range made {
		held += len(b.slots)
	}
	if len(made) > 2 || held > 3*minSlab {
		t.Errorf("a client with one record outstanding made %d slabs of %d slots in all", len(made), held)
	}

	var fast slabs
	var out []*slot
	for range 100_000 { // a burst: 100,000 records outstanding
		out = append(out, fast.take())
	}
	if got := len(fast.cur.slots); got != maxSlab {
		t.Errorf("a client with 100,000 records outstanding cuts slabs of %d slots, want %d", got, maxSlab)
	}
	for _, sl := range out {
		fast.release(sl)
	}
	burst := len(fast.free)
	for range 2 * trimEvery * maxSlab { // then one record outstanding at a time
		sl := fast.take()
		fast.release(sl)
	}
	if n := len(fast.free); n > slabSpare+1 {
		t.Errorf("%d free slabs kept after the burst's %d were unused for %d slabs taken", n, burst, 2*trimEvery)
	}
}

// TestSlabValues: values rendered into a slab stay as rendered while their
// records are in flight (no value overlaps another, none can be appended
// into the next), and a slab's values are rendered over only once all its
// records completed.
func TestSlabValues(t *testing.T) {
	r, ok := studyValues(t).(payload.Renderer)
	if !ok {
		t.Fatal("a template renders: it must be a payload.Renderer")
	}
	var s slabs
	type sent struct {
		sl   *slot
		want []byte
	}
	var inFlight []sent
	now := time.Now()
	for i := int64(0); i < 3*maxSlab+10; i++ {
		sl := s.take()
		v := s.render(r, i, now)
		if cap(v) != len(v) {
			t.Fatalf("record %d: value of %d bytes has capacity %d: an append would write over the next", i, len(v), cap(v))
		}
		sl.rec.Value = v
		inFlight = append(inFlight, sent{sl, bytes.Clone(v)})
	}
	check := func() {
		t.Helper()
		for i, f := range inFlight {
			if !bytes.Equal(f.sl.rec.Value, f.want) {
				t.Fatalf("record %d changed in flight: %s, rendered %s", i, f.sl.rec.Value, f.want)
			}
		}
	}
	check()
	// The first slab completes; the next slabs' records are still in
	// flight while it is rendered over.
	first := inFlight[0].sl.slab
	n := len(first.slots)
	for _, f := range inFlight[:n] {
		s.release(f.sl)
	}
	inFlight = inFlight[n:]
	for k := 0; s.cur != first; k++ {
		if k > 3*maxSlab {
			t.Fatal("the completed slab was not reused")
		}
		s.take()
		s.render(r, int64(k), now)
	}
	for k := 1; k < n; k++ { // render over the whole reused slab
		s.take()
		s.render(r, int64(k), now)
	}
	check()
}
