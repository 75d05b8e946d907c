package faults

import (
	"context"
	"fmt"
)

// The operations an Actor carries out on a broker process, which the
// built-in kinds of the same names compose (a bounce is restarts).
const (
	Kill    = "kill"    // SIGKILL: a crash
	Stop    = "stop"    // SIGTERM: a clean shutdown
	Pause   = "pause"   // SIGSTOP: a hung process
	Resume  = "resume"  // SIGCONT
	Restart = "restart" // start again (stopping it first if it runs)
	Bounce  = "bounce"  // the kind: restart, Times times
	// Heal is kbench's own action at the end of a run: every broker that
	// is down is started again, every paused one resumed.
	Heal = "heal"
)

// Actor carries out operations on brokers: the local cluster's processes
// (LocalActor) or the plan's commands on a remote one (CommandActor).
type Actor interface {
	// Act does op (Kill, Stop, Pause, Resume, Restart) on broker and
	// returns what it printed.
	Act(ctx context.Context, op string, broker int32) (output string, err error)
	// Heal brings back every broker left down or paused, reporting what it
	// did; remote actors do nothing (the plan's own timeline must).
	Heal(ctx context.Context) ([]Healed, error)
}

// Healed is one broker Heal brought back, and how (the kind whose effect
// it had: resume or restart).
type Healed struct {
	Broker int32
	Action string
}

// onEach does op on every target broker, times times each, until an
// operation fails; the outputs are joined.
func onEach(ctx context.Context, a Action, op string, times int) (Done, error) {
	var d Done
	for _, b := range a.Brokers {
		for k := 0; k < max(times, 1); k++ {
			out, err := a.Actor.Act(ctx, op, b)
			d.Output += out
			if err != nil {
				return d, err
			}
		}
	}
	return d, nil
}

// Processes is the local cluster as an Actor needs it (*cluster.Cluster).
type Processes interface {
	Kill(id int) error
	Pause(id int) error
	Resume(id int) error
	StopBroker(ctx context.Context, id int) error
	Restart(ctx context.Context, id int) error
}

// LocalActor acts on the local cluster's processes. HealFunc brings the
// cluster back (cluster.Heal, adapted).
type LocalActor struct {
	Procs    Processes
	HealFunc func(ctx context.Context) ([]Healed, error)
	// Net shapes the cluster's links; nil on a cluster without network
	// proxies, where network faults fail with ErrNoNetwork.
	Net Network
}

// Shape sets a network fault through the cluster's proxies.
func (a LocalActor) Shape(ctx context.Context, op string, l Link, p Params) (string, error) {
	if a.Net == nil {
		return "", ErrNoNetwork
	}
	return a.Net.Shape(ctx, op, l, p)
}

// Unshape clears it.
func (a LocalActor) Unshape(ctx context.Context, op string, l Link) (string, error) {
	if a.Net == nil {
		return "", ErrNoNetwork
	}
	return a.Net.Unshape(ctx, op, l)
}

// Act signals or restarts the broker process.
func (a LocalActor) Act(ctx context.Context, op string, broker int32) (string, error) {
	id := int(broker)
	switch op {
	case Kill:
		return "", a.Procs.Kill(id)
	case Pause:
		return "", a.Procs.Pause(id)
	case Resume:
		return "", a.Procs.Resume(id)
	case Stop:
		return "", a.Procs.StopBroker(ctx, id)
	case Restart:
		return "", a.Procs.Restart(ctx, id)
	}
	return "", fmt.Errorf("no broker operation %q", op)
}

// Heal brings back whatever is down.
func (a LocalActor) Heal(ctx context.Context) ([]Healed, error) {
	if a.HealFunc == nil {
		return nil, nil
	}
	return a.HealFunc(ctx)
}
