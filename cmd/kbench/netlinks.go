package main

import (
	"context"
	"fmt"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/faults"
)

// proxyLinks carries out a plan's network faults through a local
// cluster's proxies (cluster.Link).
type proxyLinks struct{ c *cluster.Cluster }

// Shape sets op's fault on the link.
func (p proxyLinks) Shape(ctx context.Context, op string, l faults.Link, ps faults.Params) (string, error) {
	link, err := p.link(l)
	if err != nil {
		return "", err
	}
	switch op {
	case faults.Delay:
		err = link.Delay(ctx, ps.Duration("latency"), ps.Duration("jitter"))
	case faults.Loss:
		err = link.Loss(ctx, ps.Share("share"), ps.Duration("retransmit"))
	case faults.Bandwidth:
		err = link.Bandwidth(ctx, ps.ByteRate("rate"))
	case faults.Cut:
		err = link.Cut(ctx)
	default:
		return "", fmt.Errorf("no network action %q", op)
	}
	return fmt.Sprintf("%s on %d proxies (%s)\n", op, len(link.Proxies()), link), err
}

// Unshape clears op's fault: a partition is healed (which also clears the
// other faults on those proxies), the others set to nothing.
func (p proxyLinks) Unshape(ctx context.Context, op string, l faults.Link) (string, error) {
	link, err := p.link(l)
	if err != nil {
		return "", err
	}
	switch op {
	case faults.Delay:
		err = link.Delay(ctx, 0, 0)
	case faults.Loss:
		err = link.Loss(ctx, 0, cluster.DefaultRetransmit)
	case faults.Bandwidth:
		err = link.Bandwidth(ctx, 0)
	default:
		err = link.Heal(ctx)
	}
	return fmt.Sprintf("healed %s on %s\n", op, link), err
}

func (p proxyLinks) link(l faults.Link) (*cluster.Link, error) {
	return p.c.Link(endpoint(l[0]), endpoint(l[1]))
}

// endpoint is one end as the cluster names it: a node is its broker and
// its controller (one process).
func endpoint(e faults.Ends) cluster.Endpoint {
	ids := make([]int, len(e.Nodes))
	for i, n := range e.Nodes {
		ids[i] = int(n)
	}
	var ep cluster.Endpoint
	if len(ids) > 0 {
		ep = cluster.Nodes(ids...)
	}
	if e.Brokers {
		ep = ep.And(cluster.AllBrokers())
	}
	if e.Controllers {
		ep = ep.And(cluster.AllControllers())
	}
	if e.Clients {
		ep = ep.And(cluster.Clients())
	}
	return ep
}
