package faults

import (
	"context"
	"time"
)

// LossLink is a link that loses segments (cluster.Link).
type LossLink interface {
	Loss(ctx context.Context, share float64, retransmit time.Duration) error
}

// defaultRetransmit is what a lost segment costs its connection unless
// the plan says (cluster.DefaultRetransmit: Linux's minimum TCP
// retransmission timeout).
const defaultRetransmit = 200 * time.Millisecond

// loss loses a share of the link's segments: TCP retransmits them, so the
// connection stalls for the retransmission timeout.
var loss = Kind{
	Name:   Loss,
	Effect: Effect{Disrupts: true},
	Params: []Param{
		{Name: "share", Kind: ShareParam, Required: true, Does: "loses that share of segments"},
		{Name: "retransmit", Kind: DurationParam, Default: defaultRetransmit, Does: "stalls a connection that long per lost segment"},
		durationParam,
	},
	Command:     Loss,
	Example:     `ssh kafka-{broker} "sudo tc qdisc replace dev eth0 root netem loss {loss}%"`,
	HealExample: `ssh kafka-{broker} "sudo tc qdisc del dev eth0 root"`,
	Shape: shaping(Loss,
		func(ctx context.Context, l LossLink, p Params) error {
			return l.Loss(ctx, p.Share("share"), p.Duration("retransmit"))
		},
		func(ctx context.Context, l LossLink) error { return l.Loss(ctx, 0, defaultRetransmit) }),
}
