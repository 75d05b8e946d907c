package cluster

import (
	"context"
	"fmt"

	"github.com/kbench/kbench/internal/faults"
)

// Link has the method of every built-in network fault kind
// (internal/faults' delay.go, loss.go, bandwidth.go, partition.go): a new
// kind adds its method to Link and its interface here.
var _ interface {
	faults.DelayLink
	faults.LossLink
	faults.BandwidthLink
	faults.CutLink
} = (*Link)(nil)

// FaultActor carries out a plan's faults on the cluster: each kind's
// Broker action on the broker processes, and on a cluster with network
// proxies each network kind's Shaping on the Link between its ends
// (without them, network faults fail with faults.ErrNoNetwork). Its Heal
// is the cluster's.
func (c *Cluster) FaultActor() faults.Actor {
	a := faults.LocalActor{Procs: c, HealFunc: func(ctx context.Context) ([]faults.Healed, error) {
		hs, err := c.Heal(ctx)
		out := make([]faults.Healed, len(hs))
		for i, h := range hs {
			out[i] = faults.Healed{Broker: int32(h.ID), Action: h.Action}
		}
		return out, err
	}}
	if c.Network != nil {
		a.Net = proxyLinks{c}
	}
	return a
}

// proxyLinks carries out network faults through the cluster's proxies.
type proxyLinks struct{ c *Cluster }

// Shape sets k's fault on the link.
func (p proxyLinks) Shape(ctx context.Context, k faults.Kind, l faults.Link, ps faults.Params) (string, error) {
	link, err := p.link(k, l)
	if err != nil {
		return "", err
	}
	err = k.Shape.Set(ctx, link, ps)
	return fmt.Sprintf("%s on %d proxies (%s)\n", k.Name, len(link.Proxies()), link), err
}

// Unshape clears k's fault: a partition is healed (which also clears the
// other faults on those proxies), the others set to nothing.
func (p proxyLinks) Unshape(ctx context.Context, k faults.Kind, l faults.Link) (string, error) {
	link, err := p.link(k, l)
	if err != nil {
		return "", err
	}
	err = k.Shape.Clear(ctx, link)
	return fmt.Sprintf("healed %s on %s\n", k.Name, link), err
}

func (p proxyLinks) link(k faults.Kind, l faults.Link) (*Link, error) {
	if !faults.IsNetwork(k) {
		return nil, fmt.Errorf("no network action %q", k.Name)
	}
	return p.c.Link(endpoint(l[0]), endpoint(l[1]))
}

// endpoint is one end as the cluster names it: a node is its broker and
// its controller (one process).
func endpoint(e faults.Ends) Endpoint {
	ids := make([]int, len(e.Nodes))
	for i, n := range e.Nodes {
		ids[i] = int(n)
	}
	var ep Endpoint
	if len(ids) > 0 {
		ep = Nodes(ids...)
	}
	if e.Brokers {
		ep = ep.And(AllBrokers())
	}
	if e.Controllers {
		ep = ep.And(AllControllers())
	}
	if e.Clients {
		ep = ep.And(Clients())
	}
	return ep
}
