package faults

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// This file is a new network kind as it would be written, and its proof:
// corrupt is defined here, as a kind file of this package would define
// it, and registered from the tests (Kinds() is a fresh map; a built-in
// kind is a line there). It needs no change in cmd/kbench, faults/timeline
// or plan: the plan reads it through plan.WithFaultKind
// (corrupt_plan_test.go), LocalActor acts with it on any link with a
// Corrupt method (the method cluster.Link would gain), and CommandActor
// runs the plan's corrupt and heal_corrupt commands.

// CorruptLink is a link that corrupts a share of its segments.
type CorruptLink interface {
	Corrupt(ctx context.Context, share float64) error
}

// corrupt corrupts a share of the link's segments, which TCP drops and
// retransmits: the connection stalls as under a loss.
var corrupt = Kind{
	Name:   "corrupt",
	Effect: Effect{Disrupts: true},
	Params: []Param{
		{Name: "share", Kind: ShareParam, Required: true, Does: "corrupts that share of segments"},
		durationParam,
	},
	Command:     "corrupt",
	Example:     `ssh kafka-{broker} "sudo tc qdisc replace dev eth0 root netem corrupt {loss}%"`,
	HealExample: `ssh kafka-{broker} "sudo tc qdisc del dev eth0 root"`,
	Shape: shaping("corrupt",
		func(ctx context.Context, l CorruptLink, p Params) error { return l.Corrupt(ctx, p.Share("share")) },
		func(ctx context.Context, l CorruptLink) error { return l.Corrupt(ctx, 0) }),
}

// Corrupt is the test-only kind, for corrupt_plan_test.go (package
// faults_test, which may import plan).
var Corrupt = corrupt

// corruptingLink is a local cluster's link that has the new kind's method.
type corruptingLink struct{ shares []float64 }

func (l *corruptingLink) String() string { return "broker 1 ↔ every broker" }
func (l *corruptingLink) Corrupt(_ context.Context, share float64) error {
	l.shares = append(l.shares, share)
	return nil
}

// links is a local cluster's Network as cluster.FaultActor's is: it
// resolves a fault's link to the cluster's and lets the kind shape it.
type links struct{ link ProxyLink }

func (n links) Shape(ctx context.Context, k Kind, _ Link, p Params) (string, error) {
	return k.Name + " set\n", k.Shape.Set(ctx, n.link, p)
}

func (n links) Unshape(ctx context.Context, k Kind, _ Link) (string, error) {
	return k.Name + " cleared\n", k.Shape.Clear(ctx, n.link)
}

// TestANewNetworkKind: the test-only corrupt kind, registered beside the
// built-in ones, is a network kind to every reader of the table: the
// remote commands it needs and their placeholders; LocalActor sets and
// clears it on a link with its method (and fails on one without);
// CommandActor runs its commands for every pair of the link's ends.
func TestANewNetworkKind(t *testing.T) {
	t.Parallel()
	kinds := Kinds()
	kinds[corrupt.Name] = corrupt
	k := kinds["corrupt"]
	if !IsNetwork(k) || !slices.Contains(NetworkNames(kinds), "corrupt") {
		t.Errorf("corrupt is not a network kind: %v", NetworkNames(kinds))
	}
	if got := CommandNames(kinds); !slices.Contains(got, "corrupt") || !slices.Contains(got, "heal_corrupt") {
		t.Errorf("commands %v; want corrupt and heal_corrupt", got)
	}
	if got := Placeholders(kinds, "heal_corrupt"); !slices.Equal(got, []string{"broker", "peer"}) {
		t.Errorf("heal_corrupt's placeholders %v", got)
	}
	if got := Example(kinds, "heal_corrupt"); got != corrupt.HealExample {
		t.Errorf("heal_corrupt's example %q", got)
	}
	link := Link{{Nodes: []int32{1}}, {Nodes: []int32{2, 3}}}
	act := func(a Actor) (Done, error) {
		return k.Act(context.Background(), Action{Brokers: []int32{1}, Params: WithDefaults(k, Params{"share": 0.05}), Actor: a, Link: &link})
	}

	t.Run("local", func(t *testing.T) {
		t.Parallel()
		l := &corruptingLink{}
		done, err := act(LocalActor{Net: links{l}})
		if err != nil || done.Output != "corrupt set\n" || done.Heal == nil {
			t.Fatalf("act: %+v, %v; want it set, with a heal", done, err)
		}
		if out, err := done.Heal(context.Background()); err != nil || out != "corrupt cleared\n" {
			t.Errorf("heal: %q, %v", out, err)
		}
		if !slices.Equal(l.shares, []float64{0.05, 0}) {
			t.Errorf("the link was given shares %v; want 0.05, then 0 to clear it", l.shares)
		}
		// A link without the method: the kind says so.
		_, err = act(LocalActor{Net: links{plainLink{}}})
		if err == nil || !strings.Contains(err.Error(), "corrupt on the link broker 1 ↔ broker 2: this cluster's links cannot do it") {
			t.Errorf("on a link without Corrupt: %v", err)
		}
		// A cluster without proxies: as for every network kind.
		if _, err := act(LocalActor{}); err != ErrNoNetwork {
			t.Errorf("without proxies: %v, want ErrNoNetwork", err)
		}
	})

	t.Run("remote", func(t *testing.T) {
		t.Parallel()
		a := CommandActor{Commands: map[string]string{
			"corrupt":      "echo corrupt {broker}-{peer} {loss}%",
			"heal_corrupt": "echo heal {broker}-{peer}",
		}, Timeout: 20 * time.Second}
		done, err := act(a)
		if err != nil || done.Output != "corrupt 1-2 5%\ncorrupt 1-3 5%\n" {
			t.Fatalf("act: %q, %v; want its command for every pair", done.Output, err)
		}
		if out, err := done.Heal(context.Background()); err != nil || out != "heal 1-2\nheal 1-3\n" {
			t.Errorf("heal: %q, %v", out, err)
		}
	})
}
