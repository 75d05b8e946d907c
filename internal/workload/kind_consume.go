package workload

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/workload/consume"
)

// Consume is the "consume" kind: consumer clients reading topics,
// measuring rates and lag. Started late (Env.Late), it reads its topics
// from the start: a catch-up read, or what an earlier phase wrote.
type Consume struct {
	Spec consume.ConsumerSpec
	// ShortOK: stopped by its idle timeout short of its records, it has
	// not failed (consumer-perf-test without --strict, which exits 0 as
	// the Apache tool does and says the shortfall itself).
	ShortOK bool
}

func (Consume) Kind() string        { return "consume" }
func (c Consume) Engine() Engine    { return &consumeEngine{spec: c.Spec, shortOK: c.ShortOK} }
func (Consume) BalanceClients() int { return 0 }

// Consumer implements Consuming.
func (c Consume) Consumer() consume.ConsumerSpec { return c.Spec }

// WithConsumer implements Consuming.
func (c Consume) WithConsumer(s consume.ConsumerSpec) Spec { c.Spec = s; return c }

// Seed implements Drawing.
func (c Consume) Seed() uint64 { return c.Spec.Seed }

// WithSeed implements Drawing.
func (c Consume) WithSeed(seed uint64) Spec { c.Spec.Seed = seed; return c }

// WithBalance implements Balanced: the readers tell b what they read.
func (c Consume) WithBalance(b *load.Balance) Spec {
	c.Spec.Balance = b
	return c
}

type consumeEngine struct {
	spec    consume.ConsumerSpec
	shortOK bool
	run     *consume.ConsumerRun
}

func (e *consumeEngine) Prepare(ctx context.Context, env Env) error {
	spec := e.spec
	spec.Epoch = env.Epoch
	spec.IdleFromStarted = true // Start restarts the idle clock
	if env.Late {
		opts := spec.ClientOpts
		spec.ClientOpts = func(i int) []kgo.Opt {
			// Both: the start offset decides where a group without
			// commits begins (auto.offset.reset=latest sets it to the end).
			start := kgo.NewOffset().AtStart()
			return append(opts(i), kgo.ConsumeStartOffset(start), kgo.ConsumeResetOffset(start))
		}
		spec.Latest = false
	}
	run, err := consume.StartConsumer(ctx, spec)
	if err != nil {
		return fmt.Errorf("start consumers: %w", err)
	}
	e.run = run
	return nil
}

// Start restarts the idle clock: the readers' wait for their group does
// not count as idle.
func (e *consumeEngine) Start(context.Context, Env) error {
	if e.run != nil {
		e.run.Started()
	}
	return nil
}

func (e *consumeEngine) Ready() <-chan struct{} {
	if e.run == nil {
		return closed // never started: nothing to wait for
	}
	return e.run.Ready()
}

func (e *consumeEngine) Wait() (Measured, error) {
	if e.run == nil {
		return Measured{}, nil
	}
	res, err := e.run.Wait()
	if !e.shortOK && res != nil && e.spec.Records > 0 && res.Records < e.spec.Records && res.Reason == consume.StopIdle {
		// Stopped by the idle timeout short of its records: the run did
		// not measure what was asked (a rebalance, or a slow producer).
		err = errors.Join(err, fmt.Errorf("consumed %d of %d records: no record arrived for %s", res.Records, e.spec.Records, e.spec.IdleTimeout))
	}
	if res != nil && res.Records == 0 && !e.run.Assigned() && (res.Reason == consume.StopIdle || res.Reason == consume.StopDuration) {
		// Its zero is no measurement: the group never gave it a partition
		// (another member holding them, a dead one's session).
		err = errors.Join(err, fmt.Errorf("read 0 records: group %q assigned its consumers no partition before they stopped (%s)", e.spec.Group, res.Reason))
	}
	m := Measured{Read: res}
	if res != nil {
		m.Sections = res.Sections
	}
	return m, err
}

func (e *consumeEngine) Stop() {
	if e.run != nil {
		e.run.Stop()
	}
}

// Slice implements Sliced.
func (c Consume) Slice(index, of int) (Spec, bool, error) {
	sp, ok, err := consume.Slice(c.Spec, index, of)
	c.Spec = sp
	return c, ok, err
}
