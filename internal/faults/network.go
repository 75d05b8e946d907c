package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
// CommandActor) implements it. k is a network kind.
type Network interface {
	// Shape sets k's fault on the link, with the kind's parameters.
	Shape(ctx context.Context, k Kind, l Link, p Params) (output string, err error)
	// Unshape clears what Shape(k, l) set.
	Unshape(ctx context.Context, k Kind, l Link) (output string, err error)
}

// ProxyLink is a local cluster's link between two ends (*cluster.Link) as
// a network kind acts on it. Each kind asks it for the one method it
// needs, through an interface in the kind's own file (DelayLink), so that
// a new network kind is a file here and a method on cluster.Link.
type ProxyLink interface{ fmt.Stringer }

// Shaping is how a network kind sets and clears its fault on a local
// cluster's link.
type Shaping struct {
	Set   func(ctx context.Context, l ProxyLink, p Params) error
	Clear func(ctx context.Context, l ProxyLink) error
}

// shaping is a kind's Shaping from its actions on its own link interface
// L: a link without L's method fails saying so.
func shaping[L any](name string, set func(context.Context, L, Params) error, clear func(context.Context, L) error) *Shaping {
	as := func(l ProxyLink) (L, error) {
		m, ok := l.(L)
		if !ok {
			return m, fmt.Errorf("%s on the link %s: this cluster's links cannot do it (%T)", name, l, l)
		}
		return m, nil
	}
	return &Shaping{
		Set: func(ctx context.Context, l ProxyLink, p Params) error {
			m, err := as(l)
			if err != nil {
				return err
			}
			return set(ctx, m, p)
		},
		Clear: func(ctx context.Context, l ProxyLink) error {
			m, err := as(l)
			if err != nil {
				return err
			}
			return clear(ctx, m)
		},
	}
}

// ErrNoNetwork is the error of a network fault on an actor that cannot
// shape links (a local cluster started without network proxies).
var ErrNoNetwork = errors.New("this cluster has no network proxies: network faults need a cluster started with `kbench cluster up --network-faults` (name it in cluster.name), or let the plan start its own local cluster (cluster.local), which has them when the plan has network faults")

// durationParam is every network kind's optional duration.
var durationParam = Param{Name: "duration", Kind: DurationParam, Does: "lasts that long, then heals"}

// shape carries out network kind k: its fault on the action's link, for
// its duration (healed then, or when the timeline ends first), else until
// a heal fault or the end of the timeline undoes it.
func shape(ctx context.Context, a Action, k Kind) (Done, error) {
	n, ok := a.Actor.(Network)
	if !ok {
		return Done{}, ErrNoNetwork
	}
	if a.Link == nil {
		return Done{}, fmt.Errorf("%s needs a link: between: [A, B] or a target", k.Name)
	}
	l := *a.Link
	undo := func(ctx context.Context) (string, error) { return n.Unshape(ctx, k, l) }
	out, err := n.Shape(ctx, k, l, a.Params)
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

// networkOrder is the order the docs and messages list the built-in
// network kinds in.
var networkOrder = []string{Delay, Loss, Bandwidth, Cut}

// NetworkNames lists the network kinds' names: the built-in ones in the
// docs' order, then any others, sorted.
func NetworkNames(kinds map[string]Kind) []string {
	var names []string
	for _, name := range networkOrder {
		if k, ok := kinds[name]; ok && IsNetwork(k) {
			names = append(names, name)
		}
	}
	for _, name := range Names(kinds) {
		if IsNetwork(kinds[name]) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}
