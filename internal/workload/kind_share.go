package workload

import (
	"context"

	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/share"
)

// ShareConsume is the "share-consume" kind: members of a share group
// reading a topic as a queue (share.Start). Share says how they
// acknowledge. With Verify, every record from where the group started to
// the topic's end when the run ended must be settled exactly once
// (accepted once, rejected, or archived after its last delivery);
// otherwise the run fails with what was not.
type ShareConsume struct {
	Spec   consume.ConsumerSpec
	Share  share.Spec
	Verify bool
	// ShortOK: stopped by its idle timeout short of its records, it has
	// not failed (the drop-in, which exits 0 as the Apache tool does).
	ShortOK bool
	// GroupConfigs are set on the share group before its members join
	// (share.auto.offset.reset, share.record.lock.duration.ms,
	// share.delivery.count.limit), as kafka-configs --entity-type groups.
	GroupConfigs map[string]string
}

func (ShareConsume) Kind() string        { return "share-consume" }
func (s ShareConsume) Engine() Engine    { return &shareEngine{spec: s} }
func (ShareConsume) BalanceClients() int { return 0 }

// Seed implements Drawing.
func (s ShareConsume) Seed() uint64 { return s.Spec.Seed }

// WithSeed implements Drawing.
func (s ShareConsume) WithSeed(seed uint64) Spec { s.Spec.Seed = seed; return s }

type shareEngine struct {
	spec ShareConsume
	run  *share.Run
}

func (e *shareEngine) Prepare(ctx context.Context, env Env) error {
	spec := e.spec.Spec
	spec.Epoch = env.Epoch
	run, err := share.Start(ctx, spec, e.spec.Share,
		share.Options{Verify: e.spec.Verify, ShortOK: e.spec.ShortOK, GroupConfigs: e.spec.GroupConfigs})
	if err != nil {
		return err
	}
	e.run = run
	return nil
}

func (e *shareEngine) Start(context.Context, Env) error { return nil }

func (e *shareEngine) Ready() <-chan struct{} {
	if e.run == nil {
		return closed
	}
	return e.run.Ready()
}

func (e *shareEngine) Wait() (Measured, error) {
	if e.run == nil {
		return Measured{}, nil
	}
	res, sh, err := e.run.Wait()
	return Measured{Read: res, Share: sh}, err
}

func (e *shareEngine) Stop() {
	if e.run != nil {
		e.run.Stop()
	}
}
