package faults

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// flip is a test-only fault kind: a type of its own and one registration
// (kinds["flip"] below) are all the timeline needs to run it. It takes
// its broker away, as far as the cluster in memory can tell (its leaders
// move 200 ms later), and undoes itself when the timeline ends.
type flip struct {
	v      *fakeView
	got    chan Action
	healed chan struct{}
}

func (flip) Effect() Effect { return Effect{Away: true, Down: true} }

func (flip) Params() []Param {
	return []Param{{Name: "share", Kind: CountParam, Min: 1, Max: 100, Default: int64(50), Does: "flips"}}
}

func (flip) Commands() []string { return nil }

func (f flip) Act(_ context.Context, a Action) (Done, error) {
	f.got <- a
	b := a.Brokers[0]
	time.AfterFunc(200*time.Millisecond, func() { f.v.move(b, next(b)) })
	return Done{Output: "flipped", Heal: func(context.Context) (string, error) {
		close(f.healed)
		return "unflipped", nil
	}}, nil
}

// TestTimelineRunsANewKind: a fault kind is a file plus one registration:
// the timeline resolves its target, fills in its parameters' defaults,
// measures the election its effect calls for, and runs its heal at the
// end, with no other change.
func TestTimelineRunsANewKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newFakeView()
		f := flip{v: v, got: make(chan Action, 1), healed: make(chan struct{})}
		kinds := Kinds()
		kinds["flip"] = f
		tl, err := Start(context.Background(), Config{
			view: v, Kinds: kinds, Topics: []string{"t"}, Actor: newEventActor(nil),
			Faults: []Fault{{Name: "f", Action: "flip", Target: Target{Leader: &Partition{Topic: "t", Partition: 1}}, At: time.Second}},
		}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		leader := v.leader(1)
		a := <-f.got
		if !slices.Equal(a.Brokers, []int32{leader}) || a.Params.Count("share") != 50 {
			t.Errorf("action %+v; want broker %d, the leader of t-1, and share 50 (the default)", a, leader)
		}
		time.Sleep(time.Second) // the bubble's clock: past the election
		tl.End(context.Background())
		<-f.healed
		rs := tl.Finish(context.Background())
		if len(rs) != 2 {
			t.Fatalf("results %+v; want the fault and its heal", rs)
		}
		r, heal := rs[0], rs[1]
		if r.Status != StatusDone || r.At != time.Second || r.Output != "flipped" || !r.Away || r.Election == nil || *r.Election < 200*time.Millisecond || *r.Election > 250*time.Millisecond {
			t.Errorf("flip %+v; want done at 1 s, with its output and the election 200 ms after it (to within a 50 ms poll)", r)
		}
		if heal.Name != "heal" || heal.Action != "flip" || heal.Broker != leader || heal.Output != "unflipped" || heal.Status != StatusDone {
			t.Errorf("heal %+v; want the flip's own heal on broker %d", heal, leader)
		}
	})
}

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
	p := withDefaults(kinds[Bounce], nil)
	if p.Count("times") != 1 {
		t.Errorf("a bounce's times default to %v, want 1", p)
	}
	if p := withDefaults(kinds[Bounce], Params{"times": int64(3)}); p.Count("times") != 3 || p.String() != "times 3" {
		t.Errorf("times given: %v", p)
	}
}
