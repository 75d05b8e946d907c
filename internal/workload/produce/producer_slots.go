package produce

import (
	"sync"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/payload"
)

// due is when the record was meant to be sent (the actual send at an
// unlimited rate), since the start.
func (sl *slot) due() time.Duration { return sl.sent - min(sl.late, 0) }

// slot is a record plus what kbench needs to know when it completes. The
// record must stay the first field: the promise receives the *kgo.Record and
// recovers its slot from the same address.
type slot struct {
	rec kgo.Record
	// sent is when the record counts as sent, in nanoseconds since the run
	// started (monotonic). It cannot live in rec.Timestamp: franz-go
	// truncates that to whole milliseconds, which would add up to 1 ms to
	// every latency.
	sent time.Duration
	// done, for a virtual user's record, is signalled when it completes.
	done chan struct{}
	// late is how long after its intended send time the record was
	// handed to franz-go (0 at an unlimited rate): OMB's publish delay
	// when positive; negative for a record the pacer sent early.
	late time.Duration
	// seq is the record's number within its client, for the tracker and
	// the record's send interval (sendIntervalEnd).
	seq int64
	// slab is the block the slot was cut from; nil for a pooled slot.
	slab *slab
}

func slotOf(r *kgo.Record) *slot { return (*slot)(unsafe.Pointer(r)) }

// slotPool recycles slots for virtual users' records: at millions of
// records per second, allocating each would add to the garbage collector's
// work.
var slotPool = sync.Pool{New: func() any { return new(slot) }}

// Slots are allocated a slab at a time and handed out in order, so that
// records sent one after another lie next to each other in memory. franz-go
// writes a batch's records in the order they were sent; slots taken from a
// pool were scattered over the heap, and reading each record's fields was
// a cache miss (perf: most of franz-go's record-writing time at 1000 B).
//
// A client's first slab has minSlab slots and each new one twice the last,
// up to maxSlab: a client at 10 records/s cycles through two slabs of 16
// and 32 slots (10 KB) where a fixed 1024 held 200 KB or more per client
// (1,000 clients: 200 MB and more), while a fast one reaches maxSlab after
// a few allocations. Slabs a client has not needed for a while are let go
// (trim), so a burst (the first second, a slow broker) does not keep its
// slabs for the rest of the run.
const (
	minSlab = 16
	maxSlab = 1024
	// trimEvery slabs taken, the free slabs that were never needed in
	// between (the fewest seen free) are let go, but for slabSpare.
	trimEvery = 64
	slabSpare = 2
)

// slab is a block of slots. A slab goes back to its client's free list when
// all of its slots have completed.
type slab struct {
	slots     []slot
	completed int // written only by the client's promise worker
	// values holds its records' rendered values (a template's), one after
	// another; franz-go is done with them once every slot has completed,
	// so they are rendered over when the slab is reused. Made on the
	// slab's first rendered value.
	values []byte
}

// slabValueBytes bounds a slab's values per slot: a value of a
// template's MaxSize up to 1 KiB per slot fits; past it, the values that
// find no room are allocated one by one.
const slabValueBytes = 1 << 10

// slabs hands out slots in order, one slab at a time; the sending goroutine
// takes and the promise worker returns, so the free list is locked (once
// per slab).
type slabs struct {
	cur  *slab
	next int
	// used is how much of cur's values are taken.
	used int

	mu   sync.Mutex
	free []*slab // most recently freed last
	// grown is the size of the last slab made; taken counts the slabs
	// taken since the last trim and low the fewest free slabs since.
	grown, taken, low int
}

// take returns the next slot. Only the sending goroutine calls it.
func (s *slabs) take() *slot {
	if s.cur == nil || s.next == len(s.cur.slots) {
		s.cur, s.next, s.used = s.reuse(), 0, 0
	}
	sl := &s.cur.slots[s.next]
	s.next++
	return sl
}

// render renders record i of r into the values of the slab the last slot
// was taken from (take first), as at now: no allocation per record, and
// none at all once the client's slabs are made. A value that finds no
// room there gets a slice of its own.
func (s *slabs) render(r payload.Renderer, i int64, now time.Time) []byte {
	b, maxSize := s.cur, r.MaxSize()
	if b.values == nil {
		b.values = make([]byte, len(b.slots)*min(maxSize, slabValueBytes))
	}
	free := b.values[s.used:]
	if len(free) < maxSize {
		return r.AppendValue(make([]byte, 0, maxSize), i, now)
	}
	v := r.AppendValue(free[:0], i, now)
	if cap(v) == len(free) {
		s.used += len(v)
	} // else it outgrew its room (a long faker value): a slice of its own
	return v[:len(v):len(v)] // an append to it cannot reach the next value
}

func (s *slabs) reuse() *slab {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taken++
	if s.taken >= trimEvery {
		s.trim()
	}
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		s.low = min(s.low, n-1)
		b.completed = 0
		return b
	}
	s.low = 0
	s.grown = min(max(minSlab, 2*s.grown), maxSlab)
	b := &slab{slots: make([]slot, s.grown)}
	for i := range b.slots {
		b.slots[i].slab = b
	}
	return b
}

// trim lets go of the least recently freed slabs that stayed free since
// the last trim, keeping slabSpare of them. Called with mu held.
func (s *slabs) trim() {
	if drop := s.low - slabSpare; drop > 0 {
		n := copy(s.free, s.free[drop:])
		clear(s.free[n:])
		s.free = s.free[:n]
	}
	s.taken, s.low = 0, len(s.free)
}

// release completes a slot; a virtual user's goes back to the pool. Only
// the promise worker calls it.
func (s *slabs) release(sl *slot) {
	b := sl.slab
	if b == nil {
		slotPool.Put(sl)
		return
	}
	b.completed++
	if b.completed == len(b.slots) {
		s.mu.Lock()
		s.free = append(s.free, b)
		s.mu.Unlock()
	}
}
