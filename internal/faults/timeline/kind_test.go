package timeline

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// flip is a test-only fault kind: a type of its own and one registration
// (kinds["flip"] below) are all the timeline needs to run it. It takes
// its broker away, as far as the cluster in memory can tell (its leaders
// move 200 ms later), and undoes itself when the timeline ends.
type flip struct {
	v      *fakeView
	got    chan faults.Action
	healed chan struct{}
}

func (flip) Effect() faults.Effect { return faults.Effect{Away: true, Down: true} }

func (flip) Params() []faults.Param {
	return []faults.Param{{Name: "share", Kind: faults.CountParam, Min: 1, Max: 100, Default: int64(50), Does: "flips"}}
}

func (flip) Commands() []string { return nil }

func (f flip) Act(_ context.Context, a faults.Action) (faults.Done, error) {
	f.got <- a
	b := a.Brokers[0]
	time.AfterFunc(200*time.Millisecond, func() { f.v.move(b, next(b)) })
	return faults.Done{Output: "flipped", Heal: func(context.Context) (string, error) {
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
		f := flip{v: v, got: make(chan faults.Action, 1), healed: make(chan struct{})}
		kinds := faults.Kinds()
		kinds["flip"] = f
		tl, err := Start(context.Background(), Config{
			view: v, Kinds: kinds, Topics: []string{"t"}, Actor: newEventActor(nil),
			Faults: []faults.Fault{{Name: "f", Action: "flip", Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 1}}, At: time.Second}},
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
		if r.Status != StatusDone || r.At != time.Second || r.Output != "flipped" || !r.Gaps || r.Election == nil || *r.Election < 200*time.Millisecond || *r.Election > 250*time.Millisecond {
			t.Errorf("flip %+v; want done at 1 s, with its output and the election 200 ms after it (to within a 50 ms poll)", r)
		}
		if heal.Name != "heal" || heal.Action != "flip" || heal.Broker != leader || heal.Output != "unflipped" || heal.Status != StatusDone {
			t.Errorf("heal %+v; want the flip's own heal on broker %d", heal, leader)
		}
	})
}
