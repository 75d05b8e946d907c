package payload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// MaxKeyRange bounds --record-key-range: keys are precomputed.
const MaxKeyRange = 1 << 20

// Keys hands out record keys: the decimal numbers 0..n-1, one chosen at
// random per record, so records spread over n distinct keys (and so over the
// partitions those keys hash to).
type Keys struct {
	keys [][]byte
	rng  *rand.Rand
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
	return &Keys{keys: keys, rng: rand.New(rand.NewPCG(seed, 0x6b657973))}, nil
}

// Key returns a random key of the range.
func (k *Keys) Key() []byte { return k.keys[k.rng.IntN(len(k.keys))] }

// MaxSize is the length of the longest key.
func (k *Keys) MaxSize() int { return len(k.keys[len(k.keys)-1]) }

// Clone returns Keys over the same keys with its own random sequence.
func (k *Keys) Clone(seed uint64) *Keys {
	return &Keys{keys: k.keys, rng: rand.New(rand.NewPCG(seed, 0x6b657973))}
}
