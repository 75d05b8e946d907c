package workload

import "testing"

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
