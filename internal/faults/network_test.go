package faults

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestNetworkFaultOnAClusterWithoutProxies(t *testing.T) {
	_, err := shape(context.Background(), Action{Actor: LocalActor{}, Link: &Link{}}, Delay)
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
	out, err := a.Shape(context.Background(), Delay, l, Params{"latency": 20 * time.Millisecond, "jitter": 5 * time.Millisecond})
	want := "1-2 20ms 5ms\n1-3 20ms 5ms\n1-clients 20ms 5ms\n2-3 20ms 5ms\n2-clients 20ms 5ms\n"
	if err != nil || out != want {
		t.Errorf("shape: %q, %v; want every pair but 2-2:\n%q", out, err, want)
	}
	if out, err := a.Unshape(context.Background(), Delay, Link{{Nodes: []int32{1}}, {Brokers: true}}); err != nil || out != "heal 1-brokers\n" {
		t.Errorf("unshape: %q, %v", out, err)
	}
	if out, err := a.Shape(context.Background(), Loss, Link{{Clients: true}, {Brokers: true}}, Params{"share": 0.05}); err != nil || out != "loss 5% {rate_kbit}\n" {
		t.Errorf("loss: %q, %v; want 5%% (and no rate: a loss has none)", out, err)
	}
}
