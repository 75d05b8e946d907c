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

// poolBytes bounds the memory a random pool may take; poolEntries bounds how
// many distinct values it holds. 1024 distinct values defeat compression
// across records as well as fresh randomness would, at a fraction of the cost.
const (
	poolBytes   = 64 << 20
	poolEntries = 1024
)

// Random returns fixed-size values of random upper-case letters (A-Z), the
// alphabet of the Apache tool's --record-size payloads, so compression ratios
// compare like for like.
func Random(size int, seed uint64) (Source, error) {
	if size <= 0 {
		return nil, fmt.Errorf("record size must be greater than zero, got %d", size)
	}
	n := poolEntries
	if size*n > poolBytes {
		n = max(1, poolBytes/size)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b62656e6368))
	buf := make([]byte, size*n)
	for i := range buf {
		buf[i] = byte('A' + rng.IntN(26))
	}
	values := make([][]byte, n)
	for i := range values {
		values[i] = buf[i*size : (i+1)*size : (i+1)*size]
	}
	return newPool(values, size, seed), nil
}

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
