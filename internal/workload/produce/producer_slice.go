package produce

import (
	"errors"

	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Slice is worker index's share of a producer spec.
func Slice(sp ProducerSpec, index, of int) (ProducerSpec, bool, error) {
	if err := engine.CheckSlice(index, of); err != nil {
		return sp, false, err
	}
	switch {
	case sp.VURamp != nil:
		return sp, false, errors.New("ramping virtual users cannot be split between workers yet: give each stage's users as a rate, or run the plan on one worker")
	case sp.Balance != nil:
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
	out.Warmup = engine.Portion(sp.Warmup, first, n, all)
	out.Rate = sp.Rate * float64(n) / float64(all)
	if sp.VUs > 0 {
		out.VUs = int(engine.Portion(int64(sp.VUs), first, n, all))
		if out.VUs == 0 {
			return sp, false, nil // fewer users than workers: this one has none
		}
	}
	if len(sp.Stages) > 0 {
		out.Stages = append(out.Stages[:0:0], sp.Stages...)
		for k := range out.Stages {
			out.Stages[k].Rate *= float64(n) / float64(all)
		}
	}
	if opts := sp.ClientOpts; opts != nil {
		out.ClientOpts = func(i int) []kgo.Opt { return opts(first + i) }
	}
	if tr := sp.Tracker; tr != nil {
		out.Tracker = func(i int) RecordTracker { return tr(first + i) }
	}
	return out, true, nil
}
