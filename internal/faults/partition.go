package faults

import "context"

// CutLink is a link that can be cut, and healed (cluster.Link). A heal
// clears every fault on the link's proxies.
type CutLink interface {
	Cut(ctx context.Context) error
	Heal(ctx context.Context) error
}

// partition cuts the link: open connections closed, new ones refused.
// Cut off from the controllers, a broker is fenced and its partitions move
// (Away); cut off only from clients or other brokers, it is not.
var partition = Kind{
	Name:        Cut,
	Effect:      Effect{Away: true, Down: true, Cuts: true},
	Params:      []Param{durationParam},
	Command:     Cut,
	Example:     `ssh kafka-{broker} "sudo iptables -I INPUT -s kafka-{peer} -j DROP && sudo iptables -I OUTPUT -d kafka-{peer} -j DROP"`,
	HealExample: `ssh kafka-{broker} "sudo iptables -D INPUT -s kafka-{peer} -j DROP; sudo iptables -D OUTPUT -d kafka-{peer} -j DROP"`,
	Shape: shaping(Cut,
		func(ctx context.Context, l CutLink, _ Params) error { return l.Cut(ctx) },
		func(ctx context.Context, l CutLink) error { return l.Heal(ctx) }),
}
