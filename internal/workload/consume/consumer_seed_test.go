package consume

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kbench/kbench/internal/workload/engine"
)

// TestConsumerClientDrawsFromTheSeed guards a consumer's random draws
// (processing times, a share member's releases and rejections), which
// came from the client's index + 1 alone, the same in every run: client
// i now draws from the spec's Seed and its index among all the workload's
// clients (a distributed worker's slice included).
func TestConsumerClientDrawsFromTheSeed(t *testing.T) {
	t.Parallel()
	draws := func(sp ConsumerSpec, i int) []float64 {
		seed := sp.clientSeed(i)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) // as the clients draw
		out := make([]float64, 8)
		for k := range out {
			out[k] = rng.Float64()
		}
		return out
	}
	a := ConsumerSpec{Seed: 1}
	b := ConsumerSpec{Seed: 2}
	if slices.Equal(draws(a, 0), draws(b, 0)) {
		t.Error("seeds 1 and 2 drew the same sequence")
	}
	if !slices.Equal(draws(a, 0), draws(ConsumerSpec{Seed: 1}, 0)) {
		t.Error("one seed drew two sequences")
	}
	if slices.Equal(draws(a, 0), draws(a, 1)) {
		t.Error("clients 0 and 1 drew the same sequence")
	}
	// Worker 1's first client is the workload's client 2.
	if w := (ConsumerSpec{Seed: 1, Slice: engine.ClientSlice{First: 2, All: 4}}); !slices.Equal(draws(w, 0), draws(a, 2)) {
		t.Error("a worker's client drew another sequence than the same client in one process")
	}
}
