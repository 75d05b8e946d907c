package workload

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Sliced is a spec that a distributed run splits between its workers:
// Slice returns worker index's share of it (of workers), and false when
// that worker runs none of it (fewer clients than workers). A share is
// whole clients: worker i runs a contiguous range of the spec's clients,
// with their own client ids (the range's indices, so ids stay unique
// across workers), and records, rates and virtual users in proportion, so
// that the slices of every worker add up to the spec.
type Sliced interface {
	Spec
	Slice(index, of int) (Spec, bool, error)
}

// ClientSlice places a slice's clients among all of a workload's: its
// client i is the workload's client First+i of All. Zero: the whole.
type ClientSlice struct{ First, All int }

// clientRange is worker index's clients of n among of workers: the first
// and how many (share's split, in order).
func clientRange(n, index, of int) (first, count int) {
	for j := range index {
		first += int(share(int64(n), of, j))
	}
	return first, int(share(int64(n), of, index))
}

// portion is clients [first, first+count) of all's part of total: the
// parts of consecutive ranges add up to total exactly.
func portion(total int64, first, count, all int) int64 {
	return total*int64(first+count)/int64(all) - total*int64(first)/int64(all)
}

func checkSlice(index, of int) error {
	if of < 1 || index < 0 || index >= of {
		return fmt.Errorf("worker %d of %d: no such worker", index, of)
	}
	return nil
}

// sliceProducer is worker index's share of a producer spec.
func sliceProducer(sp ProducerSpec, index, of int) (ProducerSpec, bool, error) {
	if err := checkSlice(index, of); err != nil {
		return sp, false, err
	}
	switch {
	case sp.VURamp != nil:
		return sp, false, errors.New("ramping virtual users cannot be split between workers yet: give each stage's users as a rate, or run the plan on one worker")
	case sp.Balance != nil:
		return sp, false, errors.New("the balanced-rate search cannot be split between workers yet: run it on one worker")
	}
	all := max(sp.Clients, 1)
	first, n := clientRange(all, index, of)
	if n == 0 {
		return sp, false, nil
	}
	out := sp
	out.Clients = n
	out.Records = portion(sp.Records, first, n, all)
	out.Warmup = portion(sp.Warmup, first, n, all)
	out.Rate = sp.Rate * float64(n) / float64(all)
	if sp.VUs > 0 {
		out.VUs = int(portion(int64(sp.VUs), first, n, all))
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

// sliceConsumer is worker index's share of a consumer spec: its clients,
// in the shared group or dealt the partitions among every worker's
// clients; records in proportion (in a group, a worker reads what the
// group assigns its members, so a records bound is per worker).
func sliceConsumer(sp ConsumerSpec, index, of int) (ConsumerSpec, bool, error) {
	if err := checkSlice(index, of); err != nil {
		return sp, false, err
	}
	if sp.Balance != nil {
		return sp, false, errors.New("the balanced-rate search cannot be split between workers yet: run it on one worker")
	}
	all := max(sp.Clients, 1)
	first, n := clientRange(all, index, of)
	if n == 0 {
		return sp, false, nil
	}
	out := sp
	out.Clients = n
	out.Records = portion(sp.Records, first, n, all)
	out.Slice = ClientSlice{First: first, All: all}
	if opts := sp.ClientOpts; opts != nil {
		out.ClientOpts = func(i int) []kgo.Opt { return opts(first + i) }
	}
	return out, true, nil
}

// Slice implements Sliced.
func (p Produce) Slice(index, of int) (Spec, bool, error) {
	sp, ok, err := sliceProducer(p.Spec, index, of)
	p.Spec = sp
	return p, ok, err
}

// Slice implements Sliced.
func (c Consume) Slice(index, of int) (Spec, bool, error) {
	sp, ok, err := sliceConsumer(c.Spec, index, of)
	c.Spec = sp
	return c, ok, err
}
