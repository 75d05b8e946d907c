package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNetworkFaultOnAClusterWithoutProxies(t *testing.T) {
	_, err := shape(context.Background(), Action{Actor: LocalActor{}, Link: &Link{}}, delay)
	if err != ErrNoNetwork || !strings.Contains(err.Error(), "cluster up --network-faults") {
		t.Errorf("err %v; want ErrNoNetwork saying how to start a cluster with proxies", err)
	}
}

func TestCarries(t *testing.T) {
	node := func(ids ...int32) Ends { return Ends{Nodes: ids} }
	tests := []struct {
		a, b Ends
		n    int
		want bool
	}{
		{node(1), node(2), 3, true},
		{node(1), node(1), 3, false},
		{node(1), Ends{Brokers: true}, 1, false}, // one broker: no other
		{node(1), Ends{Brokers: true}, 3, true},
		{Ends{Clients: true}, Ends{Clients: true}, 3, false},
		{Ends{Clients: true}, node(2), 3, true},
		{Ends{Controllers: true}, Ends{Brokers: true}, 1, false},
		{Ends{Controllers: true}, Ends{Brokers: true}, 2, true},
	}
	for _, tc := range tests {
		if got := Carries(tc.a, tc.b, tc.n); got != tc.want {
			t.Errorf("Carries(%s, %s, %d) = %v, want %v", tc.a, tc.b, tc.n, got, tc.want)
		}
	}
}

func TestCommandActorShapesEveryPair(t *testing.T) {
	a := CommandActor{Commands: map[string]string{
		Delay:           "echo {broker}-{peer} {delay} {jitter}",
		"heal_" + Delay: "echo heal {broker}-{peer}",
		Loss:            "echo loss {loss}% {rate_kbit}",
	}}
	l := Link{{Nodes: []int32{1, 2}}, {Nodes: []int32{2, 3}, Clients: true}}
	out, err := a.Shape(context.Background(), delay, l, Params{"latency": 20 * time.Millisecond, "jitter": 5 * time.Millisecond})
	want := "1-2 20ms 5ms\n1-3 20ms 5ms\n1-clients 20ms 5ms\n2-3 20ms 5ms\n2-clients 20ms 5ms\n"
	if err != nil || out != want {
		t.Errorf("shape: %q, %v; want every pair but 2-2:\n%q", out, err, want)
	}
	if out, err := a.Unshape(context.Background(), delay, Link{{Nodes: []int32{1}}, {Brokers: true}}); err != nil || out != "heal 1-brokers\n" {
		t.Errorf("unshape: %q, %v", out, err)
	}
	if out, err := a.Shape(context.Background(), loss, Link{{Clients: true}, {Brokers: true}}, Params{"share": 0.05}); err != nil || out != "loss 5% {rate_kbit}\n" {
		t.Errorf("loss: %q, %v; want 5%% (and no rate: a loss has none)", out, err)
	}
}

// fakeLink records what the network kinds ask of a local cluster's link,
// with the methods cluster.Link has.
type fakeLink struct{ did []string }

func (l *fakeLink) String() string { return "broker 1 ↔ every node" }
func (l *fakeLink) note(format string, args ...any) error {
	l.did = append(l.did, fmt.Sprintf(format, args...))
	return nil
}
func (l *fakeLink) Delay(_ context.Context, latency, jitter time.Duration) error {
	return l.note("delay %s %s", latency, jitter)
}
func (l *fakeLink) Loss(_ context.Context, share float64, retransmit time.Duration) error {
	return l.note("loss %v %s", share, retransmit)
}
func (l *fakeLink) Bandwidth(_ context.Context, rate int64) error {
	return l.note("bandwidth %d", rate)
}
func (l *fakeLink) Cut(context.Context) error  { return l.note("cut") }
func (l *fakeLink) Heal(context.Context) error { return l.note("heal") }

// TestNetworkKindsShapeALocalLink: each network kind sets its fault on a
// local link with its parameters (their defaults filled in), and clears
// just that fault; a partition's clear heals the link.
func TestNetworkKindsShapeALocalLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind       string
		params     Params
		set, clear string
	}{
		{Delay, Params{"latency": 20 * time.Millisecond, "jitter": 5 * time.Millisecond}, "delay 20ms 5ms", "delay 0s 0s"},
		{Loss, Params{"share": 0.05}, "loss 0.05 200ms", "loss 0 200ms"},
		{Bandwidth, Params{"rate": int64(1 << 20)}, "bandwidth 1048576", "bandwidth 0"},
		{Cut, nil, "cut", "heal"},
	}
	kinds := Kinds()
	for _, tt := range tests {
		k, l := kinds[tt.kind], &fakeLink{}
		if err := k.Shape.Set(context.Background(), l, WithDefaults(k, tt.params)); err != nil {
			t.Errorf("%s: %v", tt.kind, err)
		}
		if err := k.Shape.Clear(context.Background(), l); err != nil {
			t.Errorf("%s: clear: %v", tt.kind, err)
		}
		if want := []string{tt.set, tt.clear}; !slices.Equal(l.did, want) {
			t.Errorf("%s did %q, want %q", tt.kind, l.did, want)
		}
	}
}

// plainLink is a link without the network kinds' methods.
type plainLink struct{}

func (plainLink) String() string { return "broker 1 ↔ broker 2" }

// TestNetworkKindOnALinkWithoutItsMethod: a link that cannot do a kind's
// fault fails naming the kind and the link, not with a panic.
func TestNetworkKindOnALinkWithoutItsMethod(t *testing.T) {
	t.Parallel()
	err := Kinds()[Delay].Shape.Set(context.Background(), plainLink{}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "delay on the link broker 1 ↔ broker 2: this cluster's links cannot do it") {
		t.Errorf("err %v", err)
	}
}
