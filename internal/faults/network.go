package faults

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The network kinds' action names. Each shapes a link for its duration,
// or until a heal fault (or the end of the timeline) undoes it.
const (
	Delay     = "delay"     // latency, with jitter
	Loss      = "loss"      // a share of segments lost (retransmitted)
	Bandwidth = "bandwidth" // a rate limit per connection
	Cut       = "partition" // the link cut: a network partition
	// HealLink is the kind that undoes an earlier network fault: target
	// {fault: NAME}.
	HealLink = "heal"
)

// Network shapes the links between a cluster's nodes and its clients: an
// Actor that can (a LocalActor on a cluster with network proxies, a
// CommandActor) implements it. op is a network kind's action name.
type Network interface {
	// Shape sets op's fault on the link, with the kind's parameters.
	Shape(ctx context.Context, op string, l Link, p Params) (output string, err error)
	// Unshape clears what Shape(op, l) set.
	Unshape(ctx context.Context, op string, l Link) (output string, err error)
}

// ErrNoNetwork is the error of a network fault on an actor that cannot
// shape links (a local cluster started without network proxies).
var ErrNoNetwork = errors.New("this cluster has no network proxies: network faults need a cluster started with `kbench cluster up --network-faults` (name it in cluster.name), or let the plan start its own local cluster (cluster.local), which has them when the plan has network faults")

// durationParam is every network kind's optional duration.
var durationParam = Param{Name: "duration", Kind: DurationParam, Does: "lasts that long, then heals"}

// shape carries out a network kind: its fault on the action's link, for
// its duration (healed then, or when the timeline ends first), else until
// a heal fault or the end of the timeline undoes it.
func shape(ctx context.Context, a Action, op string) (Done, error) {
	n, ok := a.Actor.(Network)
	if !ok {
		return Done{}, ErrNoNetwork
	}
	if a.Link == nil {
		return Done{}, fmt.Errorf("%s needs a link: between: [A, B] or a target", op)
	}
	l := *a.Link
	undo := func(ctx context.Context) (string, error) { return n.Unshape(ctx, op, l) }
	out, err := n.Shape(ctx, op, l, a.Params)
	if err != nil {
		return Done{Output: out, Heal: undo}, err
	}
	d := a.Params.Duration("duration")
	if d <= 0 {
		return Done{Output: out, Heal: undo}, nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-a.Ended:
	case <-ctx.Done():
		return Done{Output: out, Heal: undo}, ctx.Err()
	}
	healed, err := undo(ctx)
	return Done{Output: out + healed, HealedAt: time.Now()}, err
}

// delay holds every chunk crossing the link latency ± jitter longer, each
// way.
type delay struct{}

func (delay) Effect() Effect { return Effect{Disrupts: true, Slows: true} }
func (delay) Params() []Param {
	return []Param{
		{Name: "latency", Kind: DurationParam, Required: true, Zero: true, Does: "holds each byte back, each way"},
		{Name: "jitter", Kind: DurationParam, Does: "varies the latency by up to"},
		durationParam,
	}
}
func (delay) Commands() []string                              { return []string{Delay, "heal_" + Delay} }
func (delay) Act(ctx context.Context, a Action) (Done, error) { return shape(ctx, a, Delay) }

// loss loses a share of the link's segments: TCP retransmits them, so the
// connection stalls for the retransmission timeout.
type loss struct{}

func (loss) Effect() Effect { return Effect{Disrupts: true} }
func (loss) Params() []Param {
	return []Param{
		{Name: "share", Kind: ShareParam, Required: true, Does: "loses that share of segments"},
		{Name: "retransmit", Kind: DurationParam, Default: 200 * time.Millisecond, Does: "stalls a connection that long per lost segment"},
		durationParam,
	}
}
func (loss) Commands() []string                              { return []string{Loss, "heal_" + Loss} }
func (loss) Act(ctx context.Context, a Action) (Done, error) { return shape(ctx, a, Loss) }

// bandwidth limits every connection on the link to rate bytes/s each way.
type bandwidth struct{}

func (bandwidth) Effect() Effect { return Effect{Disrupts: true, Slows: true} }
func (bandwidth) Params() []Param {
	return []Param{
		{Name: "rate", Kind: ByteRateParam, Min: 1000, Max: 1 << 40, Required: true, Does: "limits each connection to"},
		durationParam,
	}
}
func (bandwidth) Commands() []string                              { return []string{Bandwidth, "heal_" + Bandwidth} }
func (bandwidth) Act(ctx context.Context, a Action) (Done, error) { return shape(ctx, a, Bandwidth) }

// partition cuts the link: open connections closed, new ones refused.
// Cut off from the controllers, a broker is fenced and its partitions move
// (Away); cut off only from clients or other brokers, it is not.
type partition struct{}

func (partition) Effect() Effect                                  { return Effect{Away: true, Down: true} }
func (partition) Params() []Param                                 { return []Param{durationParam} }
func (partition) Commands() []string                              { return []string{Cut, "heal_" + Cut} }
func (partition) Act(ctx context.Context, a Action) (Done, error) { return shape(ctx, a, Cut) }

// healLink undoes an earlier network fault ({fault: NAME}) before the end
// of the timeline.
type healLink struct{}

func (healLink) Effect() Effect     { return Effect{Back: true} }
func (healLink) Params() []Param    { return nil }
func (healLink) Commands() []string { return nil }
func (healLink) Act(ctx context.Context, a Action) (Done, error) {
	if a.Undo == nil {
		return Done{}, errors.New("the fault it heals left nothing to undo (it failed, had a duration, or was healed already)")
	}
	out, err := a.Undo(ctx)
	return Done{Output: out}, err
}

// IsNetwork says whether kind acts on links (its fault takes between).
func IsNetwork(k Kind) bool { _, ok := k.(interface{ onLinks() }); return ok }

func (delay) onLinks()     {}
func (loss) onLinks()      {}
func (bandwidth) onLinks() {}
func (partition) onLinks() {}
