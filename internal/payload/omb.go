package payload

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// OpenMessaging Benchmark's records: a payload file that is one whole
// value, a pool of values that are random bytes then zeros, and keys of
// ten base64url characters. kbench's own forms differ (payload files split
// on a delimiter, random letters, decimal keys); these give OMB's
// workloads the same bytes on the wire.

// WholeFile returns a Source whose every value is the whole file, as OMB's
// payload files are read (a binary file, never split). The file is read
// once while any source uses it; at most MaxPayloadFile bytes.
func WholeFile(path string, seed uint64) (Source, error) {
	// "" names the whole-file reading in the cache: File refuses an empty
	// delimiter, so no split file shares its entry.
	src, _, err := cachedFile(path, "", seed, func() (*fileRecords, error) {
		data, err := readPayload(path, nil)
		if err != nil {
			return nil, err
		}
		return &fileRecords{data: data, offs: []uint32{0, uint32(len(data))}, maxSize: len(data)}, nil
	})
	return src, err
}

// MaxPoolBytes bounds a pool's values in all: they are made before the
// run and kept in memory.
const MaxPoolBytes = 1 << 30

// Pool returns n values of size bytes made before the run, one picked at
// random per record, as OMB's randomized payloads
// (randomizedPayloadPoolSize): each value is random bytes (all 256 of
// them, as Java's Random.nextBytes gives, not kbench's letters) for the
// first ratio of its size, rounded down as OMB does, then zeros
// (randomBytesRatio). The values are the same for every source of the same
// size, ratio and n, as OMB's producers share one pool; which value each
// record takes follows the seed. The values are made when the first value
// is taken or the first clone made.
func Pool(size int, ratio float64, n int, seed uint64) (Source, error) {
	switch {
	case size <= 0 || size > MaxRecordSize:
		return nil, fmt.Errorf("record size %d: use 1 to %d bytes", size, MaxRecordSize)
	case ratio < 0 || ratio > 1:
		return nil, fmt.Errorf("random ratio %v: use a number from 0 to 1", ratio)
	case n <= 0 || int64(n)*int64(size) > MaxPoolBytes:
		return nil, fmt.Errorf("a pool of %d values of %d bytes: use 1 value or more, at most 1 GiB in all", n, size)
	}
	return newPoolSource(poolKey{size: size, ratio: ratio, n: n}, nil, seed), nil
}

// poolKey names a pool's values: the same key gives the same values.
type poolKey struct {
	size  int
	ratio float64
	n     int
}

// poolValues are a pool's values, back to back.
type poolValues struct{ buf []byte }

var pools sharedCache[poolKey, poolValues]

func makePool(k poolKey) *poolValues {
	v := &poolValues{buf: make([]byte, k.size*k.n)}
	rng := rand.New(rand.NewPCG(uint64(k.size), uint64(k.n)))
	random := int(float64(k.size) * k.ratio) // Java's (int) cast
	for off := 0; off < len(v.buf); off += k.size {
		fillBytes(v.buf[off:off+random], rng) // the rest stays zero
	}
	return v
}

func fillBytes(b []byte, rng *rand.Rand) {
	var w [8]byte
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(w[:], rng.Uint64())
		copy(b[i:], w[:])
	}
}

type poolSource struct {
	key  poolKey
	vals *poolValues // nil until the first value
	seed uint64
	rng  *rand.Rand
}

func newPoolSource(k poolKey, vals *poolValues, seed uint64) *poolSource {
	return &poolSource{key: k, vals: vals, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x706f6f6c))}
}

func (p *poolSource) acquire() *poolValues {
	if p.vals == nil {
		p.vals, _ = pools.get(p.key, func() (*poolValues, error) { return makePool(p.key), nil })
	}
	return p.vals
}

func (p *poolSource) Value(int64) []byte {
	v := p.acquire()
	off := p.rng.IntN(p.key.n) * p.key.size
	return v.buf[off : off+p.key.size : off+p.key.size]
}

func (p *poolSource) MaxSize() int { return p.key.size }

// Clone returns a source over the same values with picks of its own.
func (p *poolSource) Clone(seed uint64) Source {
	return newPoolSource(p.key, p.acquire(), Mix(p.seed, seed))
}

// Key texts NewKeysFormat makes.
const (
	KeysDecimal = "decimal" // 0, 1, ..., n-1 (the default)
	KeysOMB     = "omb"     // OMB's: 7 random bytes in base64url without padding, 10 characters
)

// KeyFormats are the names NewKeysFormat takes.
var KeyFormats = []string{KeysDecimal, KeysOMB}

// NewKeysFormat precomputes n keys in a format, handed out by the
// distribution. OMB's keyDistributor KEY_ROUND_ROBIN is 10,000 omb keys
// sequential, RANDOM_NANO 10,000 omb keys uniform (OMB picks by the low
// bits of the nanosecond clock; kbench from the seed, so a run can be
// replayed). The omb keys come from the seed.
func NewKeysFormat(n int, dist, format string, seed uint64) (*Keys, error) {
	k, err := NewKeysDist(n, dist, seed)
	if err != nil {
		return nil, err
	}
	switch format {
	case "", KeysDecimal:
	case KeysOMB:
		rng := rand.New(rand.NewPCG(seed, 0x6f6d626b657973))
		var b [8]byte
		for i := range k.keys {
			binary.LittleEndian.PutUint64(b[:], rng.Uint64())
			k.keys[i] = []byte(base64.RawURLEncoding.EncodeToString(b[:7]))
		}
	default:
		return nil, fmt.Errorf("key format %q: use decimal or omb", format)
	}
	return k, nil
}
