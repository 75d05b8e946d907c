// Package payload makes record values and keys before a run starts, so that
// generating them is never the bottleneck: a Source hands out slices from a
// precomputed pool and the hot path only indexes into it. Learn Source first.
package payload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
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

// streamBytes is the size of the random letters Random's values are cut
// from: larger than any producer batch (a batch is compressed on its own),
// so the values in one batch never share bytes and compress exactly like
// fresh random letters, whatever the codec and batch size.
const streamBytes = 32 << 20

// Random returns fixed-size values of random upper-case letters (A-Z), the
// alphabet of the Apache tool's --record-size payloads, so that compression
// ratios compare like for like. The Java tool fills every record with fresh
// letters; kbench cuts consecutive windows from a buffer of random letters
// made once (32 MiB, or twice the record size when larger), so no work is
// done per record and no value is overwritten while franz-go holds it.
//
// Only the first MiB is filled before Random returns; the rest is filled in
// the background, and values wrap within what is filled until it is all
// there. Filling 32 MiB took three quarters of the time from process start
// to the first record sent.
func Random(size int, seed uint64) (Source, error) {
	return random(size, seed, true)
}

// firstFill is how much of the letters Random fills before returning, and
// fillChunk how much the background fill adds at a time.
const (
	firstFill = 1 << 20
	fillChunk = 256 << 10
)

func random(size int, seed uint64, background bool) (*stream, error) {
	if size <= 0 {
		return nil, fmt.Errorf("record size must be greater than zero, got %d", size)
	}
	n := max(streamBytes, 2*size)
	l := &letterBuf{buf: make([]byte, n)}
	rng := rand.New(rand.NewPCG(seed, 0x6b62656e6368))
	first := n
	if background {
		first = min(n, max(firstFill, 2*size))
	}
	fillLetters(l.buf[:first], rng)
	l.ready.Store(int64(first))
	if first < n {
		go l.fillFrom(first, rng)
	}
	return newStream(l, size, seed), nil
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
	if ratio == 1 {
		return Random(size, seed)
	}
	// Filled whole before the zeros are written over it.
	st, err := random(size, seed, false)
	if err != nil {
		return nil, err
	}
	random := int(math.Round(ratio * float64(size)))
	buf := st.letters.buf
	for off := 0; off+size <= len(buf); off += size {
		clear(buf[off+random : off+size])
	}
	return st, nil
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
	letters *letterBuf
	size    int
	off     int
	full    bool // every letter is filled: ready need not be loaded again
}

func newStream(l *letterBuf, size int, seed uint64) *stream {
	// Clones start at different places, so two clients do not send the
	// same values in step.
	slots := len(l.buf) / size
	return &stream{letters: l, size: size, off: int(seed%uint64(slots)) * size}
}

func (s *stream) Value(int64) []byte {
	buf := s.letters.buf
	end := len(buf)
	if !s.full {
		if ready := int(s.letters.ready.Load()); ready < end {
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

func (s *stream) Clone(seed uint64) Source { return newStream(s.letters, s.size, seed*7919) }

// pool picks a random entry per record; the random index is the only work.
type pool struct {
	values  [][]byte
	maxSize int
	rng     *rand.Rand
}

func newPool(values [][]byte, maxSize int, seed uint64) *pool {
	return &pool{values: values, maxSize: maxSize, rng: rand.New(rand.NewPCG(seed, 0x7061796c6f6164))}
}

func (p *pool) Value(int64) []byte {
	if len(p.values) == 1 {
		return p.values[0]
	}
	return p.values[p.rng.IntN(len(p.values))]
}

func (p *pool) MaxSize() int { return p.maxSize }

func (p *pool) Clone(seed uint64) Source { return newPool(p.values, p.maxSize, seed) }

// ErrEmptyFile means a payload file held no records.
var ErrEmptyFile = errors.New("file does not exist or is empty")

// File reads records from path, split by delimiter, and hands out a random
// one per record, as the Apache tool does. Like the Apache tool (Java's
// Scanner.useDelimiter) the delimiter is a regular expression; empty entries
// are skipped.
func File(path, delimiter string, seed uint64) (Source, int, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, fmt.Errorf("payload file %s: %w", path, ErrEmptyFile)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("payload file %s: %w", path, err)
	}
	if len(data) == 0 {
		return nil, 0, fmt.Errorf("payload file %s: %w", path, ErrEmptyFile)
	}
	if delimiter == "" {
		return nil, 0, fmt.Errorf("payload delimiter must not be empty")
	}
	re, err := regexp.Compile(delimiter)
	if err != nil {
		return nil, 0, fmt.Errorf("payload delimiter %q is not a valid regular expression: %w", delimiter, err)
	}
	if re.MatchString("") {
		// It would match between every two bytes: a file of 1-byte records.
		return nil, 0, fmt.Errorf("payload delimiter %q matches the empty string, which would split the file into 1-byte records; use one that needs at least one character, such as \\n or \\s*,\\s*", delimiter)
	}
	var values [][]byte
	maxSize := 0
	for _, part := range re.Split(string(data), -1) {
		if part == "" {
			continue
		}
		values = append(values, []byte(part))
		maxSize = max(maxSize, len(part))
	}
	if len(values) == 0 {
		return nil, 0, fmt.Errorf("payload file %s: no records between delimiters %q: %w", path, delimiter, ErrEmptyFile)
	}
	return newPool(values, maxSize, seed), len(values), nil
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
