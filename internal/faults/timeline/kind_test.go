package timeline

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// flip is a test-only fault kind: one value and one registration
// (kinds["flip"] below) are all the timeline needs to run it. It takes
// its broker away, as far as the cluster in memory can tell (the actor
// moves its leaders 200 ms later), times times (2 unless the plan says).
var flip = faults.Kind{
	Name:    "flip",
	Effect:  faults.Effect{Away: true, Down: true},
	Params:  []faults.Param{{Name: "times", Kind: faults.CountParam, Min: 1, Max: 100, Default: int64(2), Does: "flips"}},
	Command: "flip",
	Repeat:  "times",
}

// TestTimelineRunsANewKind: a fault kind is a value plus one
// registration: the timeline resolves its target, fills in its
// parameters' defaults, measures the election its effect calls for, and
// the actor's heal brings its broker back at the end, with no other
// change.
func TestTimelineRunsANewKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newFakeView()
		kinds := faults.Kinds()
		kinds["flip"] = flip
		actor := &healActor{eventActor: newEventActor(func(_ context.Context, action string, broker int32) error {
			if action == "flip" {
				time.AfterFunc(200*time.Millisecond, func() { v.move(broker, next(broker)) })
			}
			return nil
		})}
		leader := v.leader(1)
		tl, err := Start(context.Background(), Config{
			view: v, Kinds: kinds, Topics: []string{"t"}, Actor: actor,
			Faults: []faults.Fault{{Name: "f", Action: "flip", Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 1}}, At: time.Second}},
		}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		// Twice on the leader of t-1: its times' default.
		want := fmt.Sprintf("flip %d", leader)
		actor.await(t, want, 2*time.Second)
		actor.await(t, want, time.Second)
		time.Sleep(time.Second) // the bubble's clock: past the election
		tl.End(context.Background())
		rs := tl.Finish(context.Background())
		if len(rs) != 2 {
			t.Fatalf("results %+v; want the fault and the heal", rs)
		}
		r, heal := rs[0], rs[1]
		if r.Status != StatusDone || r.At != time.Second || r.Broker != leader || !r.Gaps || r.Election == nil || *r.Election < 200*time.Millisecond || *r.Election > 250*time.Millisecond {
			t.Errorf("flip %+v; want done at 1 s on broker %d, with the election 200 ms after it (to within a 50 ms poll)", r, leader)
		}
		if heal.Name != "heal" || heal.Action != faults.Restart || heal.Status != StatusDone || actor.heals.Load() != 1 {
			t.Errorf("heal %+v; want the actor's restart, once", heal)
		}
	})
}
