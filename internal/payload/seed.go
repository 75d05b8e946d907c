package payload

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"sync"
	"weak"
)

// Seeds. A plan without a seed draws a fresh one for every run (NewSeed),
// so no two runs send the same random values; a plan with a seed derives
// every client's stream from it (Mix), so the run can be replayed.

// NewSeed returns a fresh random seed from the operating system's random
// source, below 2^53 so that it survives JSON readers that hold numbers
// as doubles.
func NewSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	return binary.LittleEndian.Uint64(b[:]) & (1<<53 - 1)
}

// Mix derives a seed from two: a client's from its workload's, a
// scenario's from the run's. Different inputs give unrelated outputs
// (splitmix64's finaliser, applied twice).
func Mix(a, b uint64) uint64 {
	return splitmix(splitmix(a) ^ b)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// chacha returns a ChaCha8 generator keyed by seed: a cryptographically
// strong stream (uuids, strings), the same for the same seed.
func chacha(seed uint64) *rand.ChaCha8 {
	var key [32]byte
	x := seed
	for i := 0; i < 32; i += 8 {
		x = splitmix(x)
		binary.LittleEndian.PutUint64(key[i:], x)
	}
	return rand.NewChaCha8(key)
}

// sharedCache holds values that many sources share (a buffer of letters, a
// payload file's records) for as long as any source uses them: one copy
// per key whatever the number of scenarios and clients, and none once no
// source holds it (weak pointers; a cleanup drops the entry).
type sharedCache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]weak.Pointer[V]
}

// get returns the value for k, making it with mk when there is none alive.
func (c *sharedCache[K, V]) get(k K, mk func() (*V, error)) (*V, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if wp, ok := c.m[k]; ok {
		if v := wp.Value(); v != nil {
			return v, nil
		}
	}
	v, err := mk()
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[K]weak.Pointer[V]{}
	}
	wp := weak.Make(v)
	c.m[k] = wp
	runtime.AddCleanup(v, func(k K) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if cur, ok := c.m[k]; ok && cur == wp {
			delete(c.m, k)
		}
	}, k)
	return v, nil
}
