package faults

import "context"

// BandwidthLink is a link that limits its connections' rate (cluster.Link).
type BandwidthLink interface {
	Bandwidth(ctx context.Context, bytesPerSecond int64) error
}

// bandwidth limits every connection on the link to rate bytes/s each way.
var bandwidth = Kind{
	Name:   Bandwidth,
	Effect: Effect{Disrupts: true, Slows: true},
	Params: []Param{
		{Name: "rate", Kind: ByteRateParam, Min: 1000, Max: 1 << 40, Required: true, Does: "limits each connection to"},
		durationParam,
	},
	Command:     Bandwidth,
	Example:     `ssh kafka-{broker} "sudo tc qdisc replace dev eth0 root tbf rate {rate_kbit}kbit burst 32kbit latency 400ms"`,
	HealExample: `ssh kafka-{broker} "sudo tc qdisc del dev eth0 root"`,
	Shape: shaping(Bandwidth,
		func(ctx context.Context, l BandwidthLink, p Params) error {
			return l.Bandwidth(ctx, p.ByteRate("rate"))
		},
		func(ctx context.Context, l BandwidthLink) error { return l.Bandwidth(ctx, 0) }),
}
