package workload

import (
	"context"
	"fmt"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/produce"
)

// Produce is the "produce" kind: producer clients writing records,
// measuring publish latency (send to acknowledgement) and rates.
type Produce struct{ Spec produce.ProducerSpec }

func (Produce) Kind() string                             { return "produce" }
func (p Produce) Engine() Engine                         { return &produceEngine{spec: p.Spec} }
func (p Produce) Producer() produce.ProducerSpec         { return p.Spec }
func (Produce) WithProducer(s produce.ProducerSpec) Spec { return Produce{Spec: s} }

// Track implements Tracked.
func (p Produce) Track(t func(int) produce.RecordTracker) Spec {
	p.Spec.Tracker = t
	return p
}

// BalanceClients implements Balanced.
func (p Produce) BalanceClients() int { return balanceClients(p.Spec) }

// WithBalance implements Balanced.
func (p Produce) WithBalance(b *load.Balance) Spec {
	p.Spec = withBalance(p.Spec, b)
	return p
}

// balanceClients is how many of a producer's clients follow a balanced
// rate.
func balanceClients(s produce.ProducerSpec) int {
	if s.Balance == nil {
		return 0
	}
	return max(s.Clients, 1)
}

// withBalance gives a balanced producer the repeat's Balance.
func withBalance(s produce.ProducerSpec, b *load.Balance) produce.ProducerSpec {
	if s.Balance != nil {
		s.Balance = b
	}
	return s
}

type produceEngine struct {
	spec produce.ProducerSpec
	run  *produce.ProducerRun
}

func (e *produceEngine) Prepare(context.Context, Env) error { return nil }

func (e *produceEngine) Start(ctx context.Context, env Env) error {
	run, err := startProducer(ctx, e.spec, env)
	e.run = run
	return err
}

// startProducer starts a producer on the scenario's clock, its stalls
// told to the runner too.
func startProducer(ctx context.Context, spec produce.ProducerSpec, env Env) (*produce.ProducerRun, error) {
	spec.Epoch = env.Epoch
	spec.Progress = env.Written
	if env.OnStall != nil {
		spec.OnStall = chainStall(spec.OnStall, env.OnStall)
	}
	run, err := produce.StartProducer(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("start producers: %w", err)
	}
	return run, nil
}

func (e *produceEngine) Sent() <-chan struct{} {
	if e.run == nil {
		return closed
	}
	return e.run.Done()
}

func (e *produceEngine) Wait() (Measured, error) {
	if e.run == nil {
		return Measured{}, nil
	}
	res, err := e.run.Wait()
	return Measured{Publish: res}, err
}

func (e *produceEngine) Stop() {
	if e.run != nil {
		e.run.Stop()
	}
}

// chainStall calls both stall callbacks; either may be nil.
func chainStall(a, b func(measure.Stall)) func(measure.Stall) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(s measure.Stall) { a(s); b(s) }
}

// Slice implements Sliced.
func (p Produce) Slice(index, of int) (Spec, bool, error) {
	sp, ok, err := produce.Slice(p.Spec, index, of)
	p.Spec = sp
	return p, ok, err
}
