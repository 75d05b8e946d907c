package faults

import (
	"context"
	"fmt"
)

// The names of the kinds that act on a broker process (kill.go, ...), also
// the keys of their remote commands.
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

// Actor carries out kinds' actions on brokers: the local cluster's
// processes (LocalActor: the kind's Broker) or the plan's commands on a
// remote one (CommandActor: the kind's Command).
type Actor interface {
	// Act does kind k's action once on broker and returns what it
	// printed.
	Act(ctx context.Context, k Kind, broker int32) (output string, err error)
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

// onEach does k's action on every target broker, times times each, until
// one fails; the outputs are joined.
func onEach(ctx context.Context, a Action, k Kind, times int) (Done, error) {
	var d Done
	for _, b := range a.Brokers {
		for range max(times, 1) {
			out, err := a.Actor.Act(ctx, k, b)
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
func (a LocalActor) Shape(ctx context.Context, k Kind, l Link, p Params) (string, error) {
	if a.Net == nil {
		return "", ErrNoNetwork
	}
	return a.Net.Shape(ctx, k, l, p)
}

// Unshape clears it.
func (a LocalActor) Unshape(ctx context.Context, k Kind, l Link) (string, error) {
	if a.Net == nil {
		return "", ErrNoNetwork
	}
	return a.Net.Unshape(ctx, k, l)
}

// Act does the kind's Broker action to the broker's process (signals it,
// restarts it).
func (a LocalActor) Act(ctx context.Context, k Kind, broker int32) (string, error) {
	if k.Broker == nil {
		return "", fmt.Errorf("no broker operation %q", k.Name)
	}
	return "", k.Broker(ctx, a.Procs, int(broker))
}

// Heal brings back whatever is down.
func (a LocalActor) Heal(ctx context.Context) ([]Healed, error) {
	if a.HealFunc == nil {
		return nil, nil
	}
	return a.HealFunc(ctx)
}
