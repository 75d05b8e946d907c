package share

import (
	"sync"
	"sync/atomic"

	"github.com/kbench/kbench/internal/workload/engine"
)

// settledSet is which records of a share run some member has settled
// (accepted, rejected or archived), shared by the members so that each
// record counts once toward the run's records. A record is delivered
// again when its acknowledgement did not reach the broker in time (a
// broker died with it, its lock ran out while it was processed), and a
// second member then settles it too: counted again, the run stopped short
// (5,910 distinct records of 6,000 in a leader-kill run). One bit per
// offset, in chunks made on first use; the poll loops set bits without a
// lock.
type settledSet struct {
	parts sync.Map // engine.TopicPartition → *offsetBits
}

// part returns a partition's bits, made on first use; callers keep it.
func (s *settledSet) part(tp engine.TopicPartition) *offsetBits {
	if b, ok := s.parts.Load(tp); ok {
		return b.(*offsetBits)
	}
	b, _ := s.parts.LoadOrStore(tp, &offsetBits{})
	return b.(*offsetBits)
}

// chunkBits is how many offsets one chunk holds (8 KiB of bits).
const chunkBits = 1 << 16

// offsetBits is one partition's settled offsets.
type offsetBits struct {
	chunks sync.Map // offset / chunkBits → *[chunkBits / 64]atomic.Uint64
}

func (b *offsetBits) word(offset int64) (*atomic.Uint64, uint64) {
	idx := offset / chunkBits
	c, ok := b.chunks.Load(idx)
	if !ok {
		c, _ = b.chunks.LoadOrStore(idx, new([chunkBits / 64]atomic.Uint64))
	}
	i := offset % chunkBits
	return &c.(*[chunkBits / 64]atomic.Uint64)[i/64], 1 << (i % 64)
}

// add marks offset settled and reports whether it was the first to.
func (b *offsetBits) add(offset int64) bool {
	w, bit := b.word(offset)
	return w.Or(bit)&bit == 0
}

// remove unmarks offset: its settlement was not counted after all (the
// run had its records), so a later one may be.
func (b *offsetBits) remove(offset int64) {
	w, bit := b.word(offset)
	w.And(^bit)
}
