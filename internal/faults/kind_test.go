package faults

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestKindsParams(t *testing.T) {
	kinds := Kinds()
	if got, want := Names(kinds), []string{Bandwidth, Bounce, Delay, HealLink, Kill, Loss, Cut, Pause, Restart, Resume, Stop}; !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	// A bounce runs the restart command: a remote cluster has no bounce.
	// Every network kind has a command to undo it; a heal runs that one.
	if got, want := CommandNames(kinds), []string{Bandwidth, Delay, "heal_bandwidth", "heal_delay", "heal_loss", "heal_partition", Kill, Loss, Cut, Pause, Restart, Resume, Stop}; !slices.Equal(got, want) {
		t.Errorf("commands %v, want %v", got, want)
	}
	if got, want := ParamNames(kinds), []string{"duration", "jitter", "latency", "rate", "retransmit", "share", "times"}; !slices.Equal(got, want) {
		t.Errorf("params %v, want %v", got, want)
	}
	p := WithDefaults(kinds[Bounce], nil)
	if p.Count("times") != 1 {
		t.Errorf("a bounce's times default to %v, want 1", p)
	}
	if p := WithDefaults(kinds[Bounce], Params{"times": int64(3)}); p.Count("times") != 3 || p.String() != "times 3" {
		t.Errorf("times given: %v", p)
	}
}

// TestKindsAreWellFormed: every kind in the table is one thing: a heal, a
// network kind (with both halves of its Shaping) or an action on broker
// processes, with a remote command unless it is a heal; a Repeat names
// one of its count parameters, and only broker kinds are commands of
// their own (kbench cluster NAME).
func TestKindsAreWellFormed(t *testing.T) {
	t.Parallel()
	for name, k := range Kinds() {
		var is []string
		if k.Effect.Heals {
			is = append(is, "a heal")
		}
		if IsNetwork(k) {
			is = append(is, "a network kind")
			if k.Shape.Set == nil || k.Shape.Clear == nil {
				t.Errorf("%s: its Shaping lacks Set or Clear", name)
			}
		}
		if k.Broker != nil {
			is = append(is, "a broker kind")
		}
		if len(is) != 1 {
			t.Errorf("%s is %v; want exactly one of a heal, a network kind or a broker kind", name, is)
		}
		if k.Name != name {
			t.Errorf("Kinds()[%q] is named %q", name, k.Name)
		}
		if (k.Command == "") != k.Effect.Heals {
			t.Errorf("%s: command %q; every kind but a heal runs one on a remote cluster", name, k.Command)
		}
		if p, ok := ParamOf(k, k.Repeat); k.Repeat != "" && (!ok || p.Kind != CountParam) {
			t.Errorf("%s repeats by %q, which is not one of its count parameters", name, k.Repeat)
		}
		for _, c := range k.Commands() {
			if Example(Kinds(), c) == "" {
				t.Errorf("%s: no example command for %s", name, c)
			}
		}
		if k.Manual != nil && k.Broker == nil {
			t.Errorf("%s is a kbench cluster command but acts on no broker process", name)
		}
	}
}

// procs records what LocalActor asked of the local cluster's processes.
type procs struct{ did []string }

func (p *procs) note(what string, id int) error {
	p.did = append(p.did, what+" "+strconv.Itoa(id))
	return nil
}
func (p *procs) Kill(id int) error                          { return p.note("kill", id) }
func (p *procs) Pause(id int) error                         { return p.note("pause", id) }
func (p *procs) Resume(id int) error                        { return p.note("resume", id) }
func (p *procs) StopBroker(_ context.Context, id int) error { return p.note("stop", id) }
func (p *procs) Restart(_ context.Context, id int) error    { return p.note("restart", id) }

// TestLocalActorDoesEachBrokerKind: LocalActor does what each kind's
// Broker says to the broker's process; a bounce restarts it times times,
// and a kind with no broker action is refused.
func TestLocalActorDoesEachBrokerKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind   string
		params Params
		want   []string
	}{
		{Kill, nil, []string{"kill 2"}},
		{Stop, nil, []string{"stop 2"}},
		{Pause, nil, []string{"pause 2"}},
		{Resume, nil, []string{"resume 2"}},
		{Restart, nil, []string{"restart 2"}},
		{Bounce, Params{"times": int64(3)}, []string{"restart 2", "restart 2", "restart 2"}},
	}
	kinds := Kinds()
	for _, tt := range tests {
		p := &procs{}
		k := kinds[tt.kind]
		_, err := k.Act(context.Background(), Action{Brokers: []int32{2}, Params: WithDefaults(k, tt.params), Actor: LocalActor{Procs: p}})
		if err != nil || !slices.Equal(p.did, tt.want) {
			t.Errorf("%s: did %v, %v; want %v", tt.kind, p.did, err, tt.want)
		}
	}
	if _, err := (LocalActor{Procs: &procs{}}).Act(context.Background(), kinds[Delay], 1); err == nil || !strings.Contains(err.Error(), `no broker operation "delay"`) {
		t.Errorf("a delay on a broker process: %v", err)
	}
}
