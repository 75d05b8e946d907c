package payload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// MaxKeyRange bounds --record-key-range: keys are precomputed.
const MaxKeyRange = 1 << 20

// Keys hands out record keys: the decimal numbers 0..n-1, chosen per
// record by a distribution (uniform by default), so records spread over n
// distinct keys and the partitions those keys hash to.
type Keys struct {
	keys [][]byte
	seed uint64
	rng  *rand.Rand
	dist string
	zipf *rand.Zipf
	next int
}

// Key distributions.
const (
	KeysUniform    = "uniform"    // every key equally likely
	KeysSequential = "sequential" // 0, 1, ..., n-1, 0, ...
	KeysZipfian    = "zipfian"    // a few hot keys: P(k) ∝ (1+k)^-ZipfS
)

// KeyDistributions are the names NewKeysDist takes.
var KeyDistributions = []string{KeysUniform, KeysSequential, KeysZipfian}

// ZipfS is the zipfian distribution's exponent: key 0 gets about a fifth
// of the records at 1000 keys.
const ZipfS = 1.2

// NewKeysDist precomputes n keys handed out by the distribution.
func NewKeysDist(n int, dist string, seed uint64) (*Keys, error) {
	k, err := NewKeys(n, seed)
	if err != nil {
		return nil, err
	}
	switch dist {
	case "", KeysUniform:
	case KeysSequential, KeysZipfian:
		k.dist = dist
	default:
		return nil, fmt.Errorf("key distribution %q: use uniform, sequential or zipfian", dist)
	}
	k.init()
	return k, nil
}

func (k *Keys) init() {
	if k.dist == KeysZipfian {
		k.zipf = rand.NewZipf(k.rng, ZipfS, 1, uint64(len(k.keys)-1))
	}
}

// NewKeys precomputes n keys. n must be in [1, MaxKeyRange].
func NewKeys(n int, seed uint64) (*Keys, error) {
	if n < 1 || n > MaxKeyRange {
		return nil, fmt.Errorf("key range must be between 1 and %d, got %d", MaxKeyRange, n)
	}
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(strconv.Itoa(i))
	}
	return &Keys{keys: keys, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x6b657973))}, nil
}

// Key returns the next key.
func (k *Keys) Key() []byte {
	switch k.dist {
	case KeysSequential:
		key := k.keys[k.next]
		k.next = (k.next + 1) % len(k.keys)
		return key
	case KeysZipfian:
		return k.keys[k.zipf.Uint64()]
	}
	return k.keys[k.rng.IntN(len(k.keys))]
}

// MaxSize is the length of the longest key.
func (k *Keys) MaxSize() int { return len(k.keys[len(k.keys)-1]) }

// Clone returns Keys over the same keys with its own random sequence,
// derived from this one's seed and seed.
func (k *Keys) Clone(seed uint64) *Keys {
	seed = Mix(k.seed, seed)
	c := &Keys{keys: k.keys, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x6b657973)), dist: k.dist}
	c.init()
	return c
}
