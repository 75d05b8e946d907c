package timeline

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/faults"
)

// Unit tests of the timeline: in a synctest bubble against a cluster in
// memory (fakeView), where every time is exact whatever the machine's
// speed, and against franz-go's in-process cluster (kfake) for the
// metadata requests themselves; cmd/kbench's fault tests kill real brokers.

// moverActor "kills" a broker by moving its partitions' leadership to the
// next broker after a delay, as a controller would.
type moverActor struct {
	v     *fakeView
	delay time.Duration
	fail  map[string]error

	mu   sync.Mutex
	acts []string
}

func (a *moverActor) Act(_ context.Context, k faults.Kind, broker int32) (string, error) {
	op := k.Name
	a.mu.Lock()
	a.acts = append(a.acts, op)
	a.mu.Unlock()
	if err := a.fail[op]; err != nil {
		return "it broke", err
	}
	if op == faults.Kill || op == faults.Stop || op == faults.Pause {
		time.AfterFunc(a.delay, func() { a.v.move(broker, next(broker)) })
	}
	return "", nil
}

func (a *moverActor) Heal(context.Context) ([]faults.Healed, error) {
	return []faults.Healed{{Broker: 1, Action: faults.Restart}}, nil
}

func cluster(t *testing.T) (*kfake.Cluster, []kgo.Opt) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
}

func TestTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newFakeView()
		leader := v.leader(0)
		actor := &moverActor{v: v, delay: 300 * time.Millisecond}
		start := time.Now()
		tl, err := Start(context.Background(), Config{
			view: v, Topics: []string{"t"}, Actor: actor,
			Faults: []faults.Fault{
				{Name: "k", Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}, At: 100 * time.Millisecond},
				{Action: faults.Restart, Target: faults.Target{Fault: "k"}, After: "k", At: 500 * time.Millisecond},
				{Action: faults.Pause, Target: faults.Target{Broker: 2}, At: time.Hour}, // never reached
			},
		}, start)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // the bubble's clock: past the kill, its election and the restart
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rs := tl.Finish(ctx)
		if len(rs) != 4 {
			t.Fatalf("%d results, want the 3 faults and a heal: %+v", len(rs), rs)
		}
		kill, restart, pause, heal := rs[0], rs[1], rs[2], rs[3]
		if kill.Status != StatusDone || kill.Broker != leader || kill.Election == nil {
			t.Fatalf("kill %+v; want done on broker %d with an election time", kill, leader)
		}
		if e := *kill.Election; e < 250*time.Millisecond || e > 2*time.Second {
			t.Errorf("election %s; the actor moved leaders after 300 ms", e)
		}
		for _, m := range kill.Affected {
			if m.From != leader || m.To == leader || m.To < 0 {
				t.Errorf("partition %+v: want moved away from %d", m, leader)
			}
		}
		if kill.At < 100*time.Millisecond || kill.At > 400*time.Millisecond {
			t.Errorf("kill at %s, want about 100ms", kill.At)
		}
		if restart.Status != StatusDone || restart.Broker != leader || restart.ISRRecovered == nil {
			t.Errorf("restart %+v; want done on the killed broker %d with an ISR time", restart, leader)
		}
		if restart.At < kill.At+500*time.Millisecond {
			t.Errorf("restart at %s; want 500ms after the kill at %s was done", restart.At, kill.At)
		}
		if pause.Status != StatusNotReached {
			t.Errorf("pause %+v; want not reached", pause)
		}
		if heal.Name != "heal" || heal.Action != faults.Restart || heal.ISRRecovered == nil {
			t.Errorf("heal %+v", heal)
		}
		if !kill.Gaps || !restart.Gaps || heal.Gaps {
			t.Errorf("gaps: kill %v, restart %v, heal %v; want the kill and the restart's shutdown, not the heal", kill.Gaps, restart.Gaps, heal.Gaps)
		}
	})
}

func TestTimelineFailedActionSkipsFollowers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		actor := &moverActor{v: newFakeView(), fail: map[string]error{faults.Stop: errors.New("no such pod")}}
		tl, err := Start(context.Background(), Config{
			view: actor.v, Topics: []string{"t"}, Actor: actor,
			Faults: []faults.Fault{
				{Name: "s", Action: faults.Stop, Target: faults.Target{Broker: 3}},
				{Action: faults.Restart, Target: faults.Target{Fault: "s"}, After: "s"},
			},
		}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the stop has failed; the restart has been judged
		rs := tl.Finish(context.Background())
		if rs[0].Status != StatusFailed || !strings.Contains(rs[0].Error, "no such pod") || rs[0].Output != "it broke" {
			t.Errorf("stop %+v; want failed with its error and output", rs[0])
		}
		if rs[1].Status != StatusSkipped {
			t.Errorf("restart %+v; want skipped", rs[1])
		}
		if len(actor.acts) != 1 {
			t.Errorf("actions %v; want only the stop", actor.acts)
		}
	})
}
