// Package payload makes record values and keys before a run starts, so that
// generating them is never the bottleneck: a Source hands out slices from a
// precomputed pool and the hot path only indexes into it. Learn Source first.
package payload

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
)

// Source hands out record values. Value may be called from one goroutine per
// Source; use Clone to give each producer its own.
type Source interface {
	// Value returns the value of record i (0-based, per producer). The slice
	// is shared and must not be modified.
	Value(i int64) []byte
	// MaxSize is the largest value Value can return, in bytes.
	MaxSize() int
	// Clone returns an independent Source over the same data for another
	// producer goroutine.
	Clone(seed uint64) Source
}

// minLetters is the least size of the random letters Random's values are
// cut from. The letters must be larger than any producer batch (a batch is
// compressed on its own), so that the values in one batch never share
// bytes and compress exactly like fresh random letters, whatever the
// codec: 1 MiB covers batches up to 512 KiB, and ForBatches makes them
// larger for larger batches. They were 32 MiB for every run, which the
// collector's GOGC=400 turned into some 160 MB of heap.
const minLetters = 1 << 20

// letterBytes is the size of the letters for values of size bytes in
// batches of up to batch bytes: twice the larger, and at least minLetters.
// The batch's share is rounded up to a power of two, so that clients of
// neighbouring batch sizes share their letters.
func letterBytes(size, batch int) int {
	n := max(minLetters, 2*size)
	if batch > 0 {
		n = max(n, 1<<bits.Len(uint(2*batch-1)))
	}
	return n
}

// MaxRecordSize bounds the size Random and RandomRatio take: 1 GiB, past
// what max.request.size can usefully be raised to (plans and the drop-in
// commands bound their sizes to it too).
const MaxRecordSize = 1 << 30

// Random returns fixed-size values of random upper-case letters (A-Z), the
// alphabet of the Apache tool's --record-size payloads, so that compression
// ratios compare like for like. The Java tool fills every record with fresh
// letters; kbench cuts consecutive windows from a buffer of random letters
// made once (1 MiB, or twice the record size, or the batch size given to
// ForBatches, when larger), so no work is done per record and no value is
// overwritten while franz-go holds it.
//
// The buffer is made when the first value is taken or the first clone
// made, not by Random: a plan of thousands of scenarios is built and
// checked without one. It is shared
// by every source of the same seed and buffer size (clients, scenarios and
// record sizes alike) for as long as one of them is in use; each source
// starts at its own place in it (from the seed given to Random or Clone).
//
// Only the first MiB is filled before the first value is returned; the
// rest of a larger buffer is filled in the background, and values wrap
// within what is filled until it is all there. Filling 32 MiB took three
// quarters of the time from process start to the first record sent.
func Random(size int, seed uint64) (Source, error) {
	return random(size, seed, 1)
}

// firstFill is how much of the letters are filled before the first value,
// and fillChunk how much the background fill adds at a time.
const (
	firstFill = 1 << 20
	fillChunk = 256 << 10
)

func random(size int, seed uint64, ratio float64) (*stream, error) {
	if size <= 0 {
		return nil, fmt.Errorf("record size must be greater than zero, got %d", size)
	}
	if size > MaxRecordSize {
		return nil, fmt.Errorf("record size %d is more than %d (1 GiB), the largest record kbench sends", size, MaxRecordSize)
	}
	k := letterKey{seed: seed, n: letterBytes(size, 0), ratio: ratio}
	if ratio < 1 || 2*size > firstFill {
		// Its zeros are laid out for this size, or its first fill must
		// hold two values.
		k.size = size
	}
	return newStream(k, nil, size, seed), nil
}

// letterKey names a buffer of letters: the same key gives the same bytes.
type letterKey struct {
	seed  uint64
	n     int     // bytes
	size  int     // RandomRatio: the value size its zeros are laid out for
	ratio float64 // the random share of each value (1: all letters)
}

var letterBufs sharedCache[letterKey, letterBuf]

// letters returns the buffer for k, shared while anyone holds it.
func sharedLetters(k letterKey) *letterBuf {
	l, _ := letterBufs.get(k, func() (*letterBuf, error) { return newLetterBuf(k), nil })
	return l
}

func newLetterBuf(k letterKey) *letterBuf {
	l := &letterBuf{buf: make([]byte, k.n)}
	rng := rand.New(rand.NewPCG(k.seed, 0x6b62656e6368))
	first := k.n
	if k.ratio == 1 {
		first = min(k.n, max(firstFill, k.size*2))
	}
	fillLetters(l.buf[:first], rng)
	if k.ratio < 1 {
		// Filled whole, then zeros written over the tail of each value.
		random := int(math.Round(k.ratio * float64(k.size)))
		for off := 0; off+k.size <= len(l.buf); off += k.size {
			clear(l.buf[off+random : off+k.size])
		}
	}
	l.ready.Store(int64(first))
	if first < k.n {
		// Not joined, by intent: the fill is bounded (the rest of the
		// buffer) and ends on its own; waiting for it
		// would hold the first value until the whole buffer is filled.
		// Readers wait on ready instead; leaktest ignores it.
		go l.fillFrom(first, rng)
	}
	return l
}

// letterBuf is a buffer of random letters, filled from the front; ready says
// how much is filled, and once a reader has loaded it those bytes are
// safe to read.
type letterBuf struct {
	buf   []byte
	ready atomic.Int64
}

func (l *letterBuf) fillFrom(off int, rng *rand.Rand) {
	for off < len(l.buf) {
		end := min(off+fillChunk, len(l.buf))
		fillLetters(l.buf[off:end], rng)
		l.ready.Store(int64(end))
		off = end
	}
}

// RandomRatio returns values of which only the first ratio of each is
// random letters and the rest zeros, as OpenMessaging Benchmark's
// randomBytesRatio, so that a compression study measures a known
// compressibility. A ratio of 1 is Random.
func RandomRatio(size int, ratio float64, seed uint64) (Source, error) {
	if ratio < 0 || ratio > 1 {
		return nil, fmt.Errorf("random ratio %v: use a number from 0 to 1", ratio)
	}
	return random(size, seed, ratio)
}

// ForBatches returns src with letters large enough for producer batches of
// up to batchBytes bytes (kafka's batch.size, or the largest batch the
// client builds), when src is Random's or RandomRatio's and its letters
// are smaller; any other source is returned as it is. Call it before the
// first value or clone: the letters are chosen then.
func ForBatches(src Source, batchBytes int) Source {
	s, ok := src.(*stream)
	if !ok || s.letters != nil {
		return src
	}
	n := letterBytes(s.size, min(batchBytes, MaxRecordSize))
	if n <= s.key.n {
		return src
	}
	k := s.key
	k.n = n
	return newStream(k, nil, s.size, s.seed)
}

// fillLetters fills buf with random letters A-Z, four per 64-bit random
// number (16 bits each, scaled to 26: a bias under 26/65536).
func fillLetters(buf []byte, rng *rand.Rand) {
	for i := 0; i < len(buf); i += 4 {
		x := rng.Uint64()
		for j := 0; j < 4 && i+j < len(buf); j++ {
			buf[i+j] = byte('A' + (uint32(x>>(16*j))&0xffff)*26>>16)
		}
	}
}

// stream hands out consecutive windows of its letters, wrapping at their
// end, or at the end of what is filled while they are still being filled.
type stream struct {
	key     letterKey
	letters *letterBuf // nil until the first value
	size    int
	seed    uint64
	off     int
	full    bool // every letter is filled: ready need not be loaded again
}

func newStream(k letterKey, l *letterBuf, size int, seed uint64) *stream {
	// Streams start at places of their own, so two clients do not send
	// the same values in step.
	slots := k.n / size
	return &stream{key: k, letters: l, size: size, seed: seed, off: int(splitmix(seed)%uint64(slots)) * size}
}

// acquire makes or joins the shared letters.
func (s *stream) acquire() *letterBuf {
	if s.letters == nil {
		s.letters = sharedLetters(s.key)
	}
	return s.letters
}

func (s *stream) Value(int64) []byte {
	l := s.letters
	if l == nil {
		l = s.acquire()
	}
	buf := l.buf
	end := len(buf)
	if !s.full {
		if ready := int(l.ready.Load()); ready < end {
			end = ready
		} else {
			s.full = true
		}
	}
	if s.off+s.size > end {
		s.off = 0
	}
	v := buf[s.off : s.off+s.size : s.off+s.size]
	s.off += s.size
	return v
}

func (s *stream) MaxSize() int { return s.size }

// Clone returns a stream over the same letters starting at its own place,
// derived from this stream's seed and seed. Clones are made when a run
// starts, so the letters are made then, not on the first record.
func (s *stream) Clone(seed uint64) Source {
	return newStream(s.key, s.acquire(), s.size, Mix(s.seed, seed))
}

// Monotonic returns the decimal record number as the value ("0", "1", ...),
// as the Apache tool's --payload-monotonic does. Each value is a fresh small
// slice because the client holds it until the record is acknowledged.
// maxRecords bounds the values for MaxSize; 0 means unbounded.
func Monotonic(maxRecords int64) Source {
	if maxRecords <= 0 {
		return monotonic{maxSize: len(strconv.FormatInt(math.MaxInt64, 10))}
	}
	return monotonic{maxSize: len(strconv.FormatInt(maxRecords-1, 10))}
}

type monotonic struct{ maxSize int }

func (m monotonic) Value(i int64) []byte { return strconv.AppendInt(make([]byte, 0, 20), i, 10) }
func (m monotonic) MaxSize() int         { return m.maxSize }
func (m monotonic) Clone(uint64) Source  { return m }
