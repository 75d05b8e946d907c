package faults

import (
	"context"
	"time"
)

// DelayLink is a link that holds its bytes back (cluster.Link).
type DelayLink interface {
	Delay(ctx context.Context, latency, jitter time.Duration) error
}

// delay holds every chunk crossing the link latency ± jitter longer, each
// way.
var delay = Kind{
	Name:   Delay,
	Effect: Effect{Disrupts: true, Slows: true},
	Params: []Param{
		{Name: "latency", Kind: DurationParam, Required: true, Zero: true, Does: "holds each byte back, each way"},
		{Name: "jitter", Kind: DurationParam, Does: "varies the latency by up to"},
		durationParam,
	},
	Command:     Delay,
	Example:     `ssh kafka-{broker} "sudo tc qdisc replace dev eth0 root netem delay {delay} {jitter}"`,
	HealExample: `ssh kafka-{broker} "sudo tc qdisc del dev eth0 root"`,
	Shape: shaping(Delay,
		func(ctx context.Context, l DelayLink, p Params) error {
			return l.Delay(ctx, p.Duration("latency"), p.Duration("jitter"))
		},
		func(ctx context.Context, l DelayLink) error { return l.Delay(ctx, 0, 0) }),
}
