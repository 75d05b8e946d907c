package cluster

import (
	"context"
	"fmt"
	"math"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// DefaultRetransmit is what a lost segment costs its connection by
// default (Loss): Linux's minimum TCP retransmission timeout (TCP_RTO_MIN).
const DefaultRetransmit = 200 * time.Millisecond

// Link is the network between two endpoints of a network-faults cluster:
// every proxy that carries a connection from one to the other, whichever
// side opened it. Its faults act on both directions of every such
// connection, as tc netem on both hosts would; a connection of a node to
// itself never goes through a proxy and is never affected.
//
// Faults stay on the proxies until cleared (Heal, a zero value, or the
// cluster's Heal), whatever happens to the Link value or the process
// that set them: any process may set or clear them, through the proxy
// process's API. Links that share proxies share their faults: a fault set
// through one is cleared by another's Heal.
type Link struct {
	c       *Cluster
	a, b    Endpoint
	proxies []Proxy
}

// Link returns the link between a and b. It fails on a cluster without
// network faults (ErrNoNetwork), for a node the cluster lacks, and when no
// connection runs between a and b (a node and itself).
func (c *Cluster) Link(a, b Endpoint) (*Link, error) {
	n := c.network()
	if n == nil {
		return nil, fmt.Errorf("link between %s and %s: cluster %q: %w (start it with network faults: kbench cluster up --network-faults)", a, b, c.Name, ErrNoNetwork)
	}
	for _, e := range []Endpoint{a, b} {
		if err := e.check(c.Name, len(c.ids())); err != nil {
			return nil, fmt.Errorf("link between %s and %s: %w", a, b, err)
		}
	}
	l := &Link{c: c, a: a, b: b}
	for _, p := range n.Proxies {
		if (a.opens(p) && b.serves(p)) || (b.opens(p) && a.serves(p)) {
			l.proxies = append(l.proxies, p)
		}
	}
	if len(l.proxies) == 0 {
		return nil, fmt.Errorf("link between %s and %s: no connection runs between them (a node reaches itself without a proxy)", a, b)
	}
	return l, nil
}

// String names the link: "broker 1 ↔ every node".
func (l *Link) String() string { return l.a.String() + " ↔ " + l.b.String() }

// Proxies are the paths the link's faults act on.
func (l *Link) Proxies() []Proxy { return append([]Proxy(nil), l.proxies...) }

// Delay makes every byte take latency longer to cross the link, in each
// direction (a request and its answer each take latency longer: the round
// trip grows by 2×latency), give or take a uniform jitter: Toxiproxy's
// latency toxic, per chunk the proxy reads, in order (a chunk never
// overtakes the one before it, so jitter mostly widens gaps). Both are in
// whole milliseconds; jitter at most latency. Delay(0, 0) clears it.
func (l *Link) Delay(ctx context.Context, latency, jitter time.Duration) error {
	if err := wholeMillis("latency", latency); err != nil {
		return l.errorf("delay", err)
	}
	if err := wholeMillis("jitter", jitter); err != nil {
		return l.errorf("delay", err)
	}
	if jitter > latency {
		return l.errorf("delay", fmt.Errorf("jitter %s is more than the latency %s: a byte would arrive before it was sent", jitter, latency))
	}
	attrs := toxiclient.Attributes{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()}
	return l.errorf("delay", l.set(ctx, "delay", "latency", attrs, latency > 0))
}

// Loss drops a share of the link's TCP segments (of 1460 bytes, as on an
// Ethernet path), in each direction, the way TCP shows a loss to the
// programs on either side: no byte is ever lost, but the connection's
// bytes stop, in order, from the lost segment on, for retransmit, as while
// TCP waits to send it again. Each chunk the proxy reads (up to 32 KiB)
// waits at most once. retransmit is in whole milliseconds (DefaultRetransmit
// for the usual retransmission timeout). Loss(0, ...) clears it.
func (l *Link) Loss(ctx context.Context, share float64, retransmit time.Duration) error {
	if math.IsNaN(share) || share < 0 || share > 1 {
		return l.errorf("loss", fmt.Errorf("share %v: give a share of segments from 0 to 1 (0.01 for 1%%)", share))
	}
	if err := wholeMillis("retransmit", retransmit); err != nil {
		return l.errorf("loss", err)
	}
	if share > 0 && retransmit == 0 {
		return l.errorf("loss", fmt.Errorf("retransmit 0s: a lost segment costs at least a millisecond (%s is Linux's minimum retransmission timeout)", DefaultRetransmit))
	}
	attrs := toxiclient.Attributes{"share": share, "retransmit": retransmit.Milliseconds()}
	return l.errorf("loss", l.set(ctx, "loss", lossToxicType, attrs, share > 0))
}

// Bandwidth limits each connection on the link to bytesPerSecond in each
// direction: Toxiproxy's bandwidth toxic, which counts in KB/s (1000
// bytes), so the rate is rounded to whole KB/s; at least 1000.
// Connections do not share the rate: two connections between the same
// nodes get it each. Bandwidth(0) clears it.
func (l *Link) Bandwidth(ctx context.Context, bytesPerSecond int64) error {
	if bytesPerSecond < 0 || (bytesPerSecond > 0 && bytesPerSecond < 1000) {
		return l.errorf("bandwidth", fmt.Errorf("%d bytes/s: give at least 1000 (the proxies count in KB/s), or 0 to clear the limit", bytesPerSecond))
	}
	kbps := (bytesPerSecond + 500) / 1000
	return l.errorf("bandwidth", l.set(ctx, "bandwidth", "bandwidth", toxiclient.Attributes{"rate": kbps}, kbps > 0))
}

// Cut partitions the link: every proxy on it closes its connections (both
// sockets: each side reads the end of its stream) and stops listening, so
// that a new connection either way is refused at once, until Heal. This is
// a partition that the peers see at once, not one that silently drops
// packets until a timeout.
func (l *Link) Cut(ctx context.Context) error {
	return l.errorf("cut", l.each(ctx, func(p *toxiclient.Proxy) error {
		if !p.Enabled {
			return nil
		}
		return p.Disable()
	}))
}

// Heal clears every fault on the link's proxies (also faults set through
// another link sharing them) and lets connections through again.
func (l *Link) Heal(ctx context.Context) error {
	return l.errorf("heal", l.each(ctx, func(p *toxiclient.Proxy) error {
		for _, t := range p.ActiveToxics {
			if err := p.RemoveToxic(t.Name); err != nil {
				return err
			}
		}
		if p.Enabled {
			return nil
		}
		return p.Enable()
	}))
}

func (l *Link) errorf(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s on the link %s: %w", what, l, err)
}

// set adds, updates or (on false) removes the fault kind on both streams
// of every proxy of the link.
func (l *Link) set(ctx context.Context, kind, typ string, attrs toxiclient.Attributes, on bool) error {
	return l.each(ctx, func(p *toxiclient.Proxy) error {
		for _, stream := range []string{"upstream", "downstream"} {
			name := "kbench_" + kind + "_" + stream
			exists := false
			for _, t := range p.ActiveToxics {
				exists = exists || t.Name == name
			}
			var err error
			switch {
			case !on && exists:
				err = p.RemoveToxic(name)
			case !on:
			case exists:
				_, err = p.UpdateToxic(name, 1, attrs)
			default:
				_, err = p.AddToxic(name, typ, stream, 1, attrs)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", p.Name, err)
			}
		}
		return nil
	})
}

// each calls fn on every proxy of the link, as the proxy process's API
// lists it.
func (l *Link) each(ctx context.Context, fn func(p *toxiclient.Proxy) error) error {
	return l.c.proxyAPI(ctx, func(cl *toxiclient.Client) error {
		all, err := cl.Proxies()
		if err != nil {
			return err
		}
		for _, want := range l.proxies {
			p, ok := all[want.Name]
			if !ok {
				return fmt.Errorf("the proxy process has no proxy %s (%s)", want.Name, want)
			}
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	})
}

func wholeMillis(what string, d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("%s %s is negative", what, d)
	case d%time.Millisecond != 0:
		return fmt.Errorf("%s %s: the proxies count in whole milliseconds", what, d)
	}
	return nil
}
