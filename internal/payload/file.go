package payload

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/kbench/kbench/internal/infile"
)

// Bounds on payload files: kbench keeps a file in memory with 8 bytes per
// record beside it. A 69 MB file whose delimiter matched almost every byte
// took over 4.8 GB when every record was a string and a copy.
const (
	MaxPayloadFile    = 1 << 30    // bytes
	MaxPayloadRecords = 10_000_000 // records in one file
)

// ErrEmptyFile means a payload file held no records.
var ErrEmptyFile = errors.New("file does not exist or is empty")

// fileRecords is a payload file split into records: record k is
// data[offs[2k]:offs[2k+1]].
type fileRecords struct {
	data    []byte
	offs    []uint32
	maxSize int
}

func (f *fileRecords) n() int { return len(f.offs) / 2 }

// fileKey names a file as read: the same file, unchanged, split the same
// way is read once however many scenarios and clients use it.
type fileKey struct {
	path, delimiter string
	size            int64
	mod             time.Time
}

var payloadFiles sharedCache[fileKey, fileRecords]

// File reads records from path, split by delimiter, and hands out a random
// one per record, as the Apache tool does. Like the Apache tool (Java's
// Scanner.useDelimiter) the delimiter is a regular expression; empty entries
// are skipped. A file is read once while any source uses it; records are
// windows of it, never copies.
func File(path, delimiter string, seed uint64) (Source, int, error) {
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
	return cachedFile(path, delimiter, seed, func() (*fileRecords, error) { return readRecords(path, re) })
}

// cachedFile is the source over a payload file's records as read (split)
// by read, which runs only when no source holds the file read that way
// (split names the way in the cache).
func cachedFile(path, split string, seed uint64, read func() (*fileRecords, error)) (Source, int, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, fmt.Errorf("payload file %s: %w", path, ErrEmptyFile)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("payload file %s: %w", path, err)
	}
	k := fileKey{delimiter: split, size: fi.Size(), mod: fi.ModTime()}
	if k.path, err = filepath.Abs(path); err != nil {
		k.path = path
	}
	if !fi.Mode().IsRegular() {
		k.mod = time.Now() // a pipe or device: read anew each time
	}
	recs, err := payloadFiles.get(k, read)
	if err != nil {
		return nil, 0, err
	}
	return newPool(recs, seed), recs.n(), nil
}

func readRecords(path string, re *regexp.Regexp) (*fileRecords, error) {
	tooMany := func() error {
		return fmt.Errorf("payload file %s holds more than %d records between delimiters %q, the most kbench keeps from one file; use a smaller file or a delimiter that splits it less often", path, MaxPayloadRecords, re.String())
	}
	// A literal delimiter (a newline, a comma) is found without the
	// regular expression engine, and counted as the file is read: most
	// files are split on one.
	lit, complete := re.LiteralPrefix()
	var check func([]byte) error
	if complete {
		check = delimiterCount(lit, 2*MaxPayloadRecords, tooMany) // even if every other record were empty
	}
	data, err := readPayload(path, check)
	if err != nil {
		return nil, err
	}
	recs := &fileRecords{data: data}
	if complete {
		n := bytes.Count(data, []byte(lit)) + 1
		if n > 2*MaxPayloadRecords {
			return nil, tooMany() // even if every other record were empty
		}
		recs.offs = make([]uint32, 0, 2*min(n, MaxPayloadRecords))
	}
	add := func(start, end int) error {
		if end == start {
			return nil
		}
		if recs.n() == MaxPayloadRecords {
			return tooMany()
		}
		recs.offs = append(recs.offs, uint32(start), uint32(end))
		recs.maxSize = max(recs.maxSize, end-start)
		return nil
	}
	off := 0
	for off < len(data) {
		var at, next int
		if complete {
			i := bytes.Index(data[off:], []byte(lit))
			if i < 0 {
				break
			}
			at, next = off+i, off+i+len(lit)
		} else {
			loc := re.FindIndex(data[off:])
			if loc == nil {
				break
			}
			at, next = off+loc[0], off+loc[1]
		}
		if err := add(off, at); err != nil {
			return nil, err
		}
		off = next
	}
	if err := add(off, len(data)); err != nil {
		return nil, err
	}
	if recs.n() == 0 {
		return nil, fmt.Errorf("payload file %s: no records between delimiters %q: %w", path, re.String(), ErrEmptyFile)
	}
	recs.offs = recs.offs[:len(recs.offs):len(recs.offs)]
	return recs, nil
}

// readPayload reads a payload file of at most MaxPayloadFile bytes,
// calling check (when not nil) on each piece as it is read.
func readPayload(path string, check func([]byte) error) ([]byte, error) {
	data, err := infile.ReadChecked(path, MaxPayloadFile, "one payload file", check)
	if errors.Is(err, infile.ErrTooLarge) {
		return nil, fmt.Errorf("payload file %w; use a smaller sample of the records", err)
	}
	if err != nil {
		return nil, fmt.Errorf("payload file %s: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("payload file %s: %w", path, ErrEmptyFile)
	}
	return data, nil
}

// delimiterCount counts a literal delimiter in pieces of a file as they
// are read, and fails once there are more than limit: the file is refused
// before the rest of it is read (a FIFO fed by yes, or a large file split
// on every other byte, read to its end took 36 s and 712 MB to be refused).
func delimiterCount(lit string, limit int, tooMany func() error) func([]byte) error {
	d := []byte(lit)
	n, carry := 0, []byte(nil) // carry: the last len(d)-1 bytes read
	return func(piece []byte) error {
		n += bytes.Count(piece, d)
		if len(carry) > 0 { // a delimiter cut by the pieces' boundary
			n += bytes.Count(append(carry, piece[:min(len(d)-1, len(piece))]...), d)
		}
		if n > limit {
			return tooMany()
		}
		if len(piece) >= len(d)-1 {
			carry = append(carry[:0], piece[len(piece)-(len(d)-1):]...)
		} else {
			carry = append(carry, piece...)
			carry = carry[max(0, len(carry)-(len(d)-1)):]
		}
		return nil
	}
}

// pool picks a random record of a file per value; the random index is the
// only work.
type pool struct {
	recs *fileRecords
	seed uint64
	rng  *rand.Rand
}

func newPool(recs *fileRecords, seed uint64) *pool {
	return &pool{recs: recs, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x7061796c6f6164))}
}

func (p *pool) Value(int64) []byte {
	k := 0
	if n := p.recs.n(); n > 1 {
		k = p.rng.IntN(n)
	}
	s, e := p.recs.offs[2*k], p.recs.offs[2*k+1]
	return p.recs.data[s:e:e]
}

func (p *pool) MaxSize() int { return p.recs.maxSize }

func (p *pool) Clone(seed uint64) Source { return newPool(p.recs, Mix(p.seed, seed)) }
