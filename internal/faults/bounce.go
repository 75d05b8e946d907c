package faults

import "context"

// MaxBounces bounds a bounce's times.
const MaxBounces = 100

// bounce restarts a broker times times in a row, as Kafka's system tests
// bounce brokers; on a remote cluster it runs the restart command.
type bounce struct{}

func (bounce) Effect() Effect { return Effect{Away: true, Back: true} }

func (bounce) Params() []Param {
	return []Param{{Name: "times", Kind: CountParam, Min: 1, Max: MaxBounces, Default: int64(1), Does: "repeats"}}
}

func (bounce) Commands() []string { return []string{Restart} }

func (bounce) Act(ctx context.Context, a Action) (Done, error) {
	return onEach(ctx, a, Restart, int(a.Params.Count("times")))
}
