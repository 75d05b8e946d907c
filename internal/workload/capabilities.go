package workload

import (
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// The optional capabilities of a Spec. A study asks a spec what it can
// do, never what kind it is: a new kind gets every per-repeat change that
// applies to it by implementing the capability.

// Producing is a spec that writes with a producer: fresh record streams
// per repeat, flush bounds, a max-rate probe's rate and the end of sending
// act on its producer.
type Producing interface {
	Spec
	// Producer returns a copy of the producer's spec.
	Producer() produce.ProducerSpec
	// WithProducer returns the spec with its producer replaced.
	WithProducer(produce.ProducerSpec) Spec
}

// Consuming is a spec that reads with a plain consumer (a group's
// members, not a share group's, nor a writer's own reader): the study
// wires what its readers share with writers (a commit clock).
type Consuming interface {
	Spec
	// Consumer returns a copy of the consumer's spec.
	Consumer() consume.ConsumerSpec
	// WithConsumer returns the spec with its consumer replaced.
	WithConsumer(consume.ConsumerSpec) Spec
}

// Tracked is a producing spec whose records can be verified one by one:
// each client's records go through the RecordTracker the function returns.
type Tracked interface {
	Producing
	Track(func(client int) produce.RecordTracker) Spec
}

// Balanced is a spec that takes part in OMB's balanced-rate search: its
// writers set their rate from a shared load.Balance, its readers tell it
// what they read.
type Balanced interface {
	Spec
	// BalanceClients is how many of its clients write at the balanced
	// rate (0: none; a reader only tells).
	BalanceClients() int
	// WithBalance returns the spec taking part in b.
	WithBalance(b *load.Balance) Spec
}

// Drawing is a spec whose clients draw random values of their own (a
// consumer's processing times, a share member's release and reject
// draws): each repeat reseeds it, as a producer's record streams.
type Drawing interface {
	Spec
	// Seed is the seed the clients' draws derive from.
	Seed() uint64
	// WithSeed returns the spec drawing from seed.
	WithSeed(seed uint64) Spec
}
