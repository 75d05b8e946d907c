package workload

import (
	"bytes"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/payload"
)

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
	for i := int64(0); i < 3*slabSize+10; i++ {
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
	for _, f := range inFlight[:slabSize] {
		s.release(f.sl)
	}
	inFlight = inFlight[slabSize:]
	for i := int64(0); i < slabSize; i++ {
		s.take()
		s.render(r, i, now)
	}
	if s.cur != first {
		t.Fatal("the completed slab was not reused")
	}
	check()
}
