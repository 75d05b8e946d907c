package consume

import (
	"errors"

	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Slice is worker index's share of a consumer spec: its clients,
// in the shared group or dealt the partitions among every worker's
// clients; records in proportion (in a group, a worker reads what the
// group assigns its members, so a records bound is per worker).
func Slice(sp ConsumerSpec, index, of int) (ConsumerSpec, bool, error) {
	if err := engine.CheckSlice(index, of); err != nil {
		return sp, false, err
	}
	if sp.Balance != nil {
		return sp, false, errors.New("the balanced-rate search cannot be split between workers yet: run it on one worker")
	}
	all := max(sp.Clients, 1)
	first, n := engine.ClientRange(all, index, of)
	if n == 0 {
		return sp, false, nil
	}
	out := sp
	out.Clients = n
	out.Records = engine.Portion(sp.Records, first, n, all)
	out.Slice = engine.ClientSlice{First: first, All: all}
	if opts := sp.ClientOpts; opts != nil {
		out.ClientOpts = func(i int) []kgo.Opt { return opts(first + i) }
	}
	return out, true, nil
}
