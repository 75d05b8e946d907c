package timeline

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/faults"
)

// eventActor runs the test's function per action and reports every action
// as "action broker" on acts, so tests wait on events, not on time.
type eventActor struct {
	act  func(ctx context.Context, action string, broker int32) error
	acts chan string
}

func newEventActor(act func(ctx context.Context, action string, broker int32) error) *eventActor {
	return &eventActor{act: act, acts: make(chan string, 64)}
}

func (a *eventActor) Act(ctx context.Context, k faults.Kind, broker int32) (string, error) {
	a.acts <- fmt.Sprintf("%s %d", k.Name, broker)
	if a.act == nil {
		return "", nil
	}
	return "", a.act(ctx, k.Name, broker)
}

func (a *eventActor) Heal(context.Context) ([]faults.Healed, error) { return nil, nil }

// await waits for the actor to report want, failing the test after bound.
func (a *eventActor) await(t *testing.T, want string, bound time.Duration) {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		select {
		case got := <-a.acts:
			if got == want {
				return
			}
		case <-timer.C:
			t.Fatalf("no %q within %s", want, bound)
		}
	}
}

// moveLeaders moves every partition of t that broker leads to to (its
// leader epoch goes up, also when to is broker itself).
func moveLeaders(c *kfake.Cluster, broker, to int32) {
	for p := int32(0); p < 3; p++ {
		if c.LeaderFor("t", p) == broker {
			_ = c.MoveTopicPartition("t", p, to)
		}
	}
}

// TestTimelineElectionBelongsToItsFault: regression: a killed broker keeps
// its partitions until the controller fences it; when that came after the
// restart had begun, the restart cancelled the kill's measurement (the kill
// showed no election) and measured the election itself. The election now
// belongs to the kill, and the restart of a broker the timeline took down
// measures none.
func TestTimelineElectionBelongsToItsFault(t *testing.T) {
	c, opts := cluster(t)
	leader := c.LeaderFor("t", 0)
	// The restart waits for the fencing, as a restarted broker waits for its
	// old session to expire before it may register again.
	actor := newEventActor(func(_ context.Context, action string, broker int32) error {
		if action == faults.Restart {
			moveLeaders(c, broker, (broker+1)%3)
		}
		return nil
	})
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor, Poll: 10 * time.Millisecond, MeasureFor: 20 * time.Second,
		Faults: []faults.Fault{
			{Name: "k", Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}},
			{Action: faults.Restart, Target: faults.Target{Fault: "k"}, After: "k"},
		},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	actor.await(t, fmt.Sprintf("restart %d", leader), 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs := tl.Finish(ctx)
	kill, restart := rs[0], rs[1]
	if kill.Election == nil || kill.ElectionTimedOut {
		t.Errorf("kill: election %v (timed out %v); want the election the kill caused", kill.Election, kill.ElectionTimedOut)
	}
	for _, m := range kill.Affected {
		if m.To == leader || m.To < 0 {
			t.Errorf("kill: partition %+v; want it moved away from broker %d", m, leader)
		}
	}
	if restart.Election != nil || restart.ElectionTimedOut || len(restart.Affected) > 0 {
		t.Errorf("restart: election %v (timed out %v, partitions %+v); a restart of a broker that was down moves no leaders itself",
			restart.Election, restart.ElectionTimedOut, restart.Affected)
	}
}

// TestTimelineRunsFaultsAtTheirTimes: regression: a fault waited until the
// action before it had finished, so one due at 35 s behind a restart still
// waiting for its broker never happened. Each fault now runs at its time.
func TestTimelineRunsFaultsAtTheirTimes(t *testing.T) {
	_, opts := cluster(t)
	release := make(chan struct{})
	actor := newEventActor(func(ctx context.Context, action string, _ int32) error {
		if action == faults.Restart {
			select { // a broker slow to come back
			case <-release:
			case <-ctx.Done():
			}
		}
		return nil
	})
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor, MeasureFor: time.Second,
		Faults: []faults.Fault{
			{Action: faults.Restart, Target: faults.Target{Broker: 1}},
			{Action: faults.Pause, Target: faults.Target{Broker: 2}, At: 50 * time.Millisecond},
		},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// The restart is still running: released only now.
	actor.await(t, "pause 2", 20*time.Second)
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs := tl.Finish(ctx)
	if rs[0].Status != StatusDone || rs[1].Status != StatusDone {
		t.Fatalf("restart %+v, pause %+v; want both done", rs[0], rs[1])
	}
}

// TestTimelineWaitsWatchTheContext: regression: finding a partition's
// leader slept between tries without watching the context, so an
// interrupted run waited up to 20 polls for a leader that did not exist.
func TestTimelineWaitsWatchTheContext(t *testing.T) {
	c, opts := cluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asked := make(chan struct{})
	var once sync.Once
	c.ControlKey(kmsg.Metadata.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		once.Do(func() { close(asked) })
		return nil, nil, false
	})
	tl, err := Start(ctx, Config{
		Admin: opts, Topics: []string{"t"}, Actor: newEventActor(nil), Poll: time.Second,
		Faults: []faults.Fault{{Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 7}}}}, // no such partition
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	cancel()
	select {
	case <-tl.done:
	case <-time.After(10 * time.Second): // 20 polls of 1 s without the fix
		t.Fatal("the timeline did not stop within 10 s of its context ending")
	}
	tl.Finish(context.Background())
}

// TestTimelineElectionOutcomes: what the row of a fault that took a
// leader away says when no other broker took its partitions. In a synctest
// bubble, so that the bound's "0.3 s" is exact on any machine.
func TestTimelineElectionOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		faults []faults.Fault
		// act moves leaders as the cluster would; await is the last action.
		act      func(v *fakeView, action string, broker int32)
		await    string
		measure  time.Duration
		noteHas  string
		noteAlso string
		timedOut bool
	}{
		{
			name: "no other replica: back with its broker",
			faults: []faults.Fault{
				{Name: "k", Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}},
				{Action: faults.Restart, Target: faults.Target{Fault: "k"}, After: "k"},
			},
			// Offline until the broker is back, then led by it again.
			act: func(v *fakeView, action string, broker int32) {
				if action == faults.Restart {
					v.move(broker, broker)
				}
			},
			await: faults.Restart, measure: 20 * time.Second, noteHas: "none: t-0",
			noteAlso: "no other in-sync replica and came back with broker",
		},
		{
			name: "resumed before it was fenced",
			faults: []faults.Fault{
				{Name: "p", Action: faults.Pause, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}},
				{Action: faults.Resume, Target: faults.Target{Fault: "p"}, After: "p"},
			},
			await: faults.Resume, measure: 20 * time.Second, noteHas: "was resumed before the cluster moved its leaders",
		},
		{
			name: "bound runs out",
			faults: []faults.Fault{
				{Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}},
			},
			await: faults.Kill, measure: 300 * time.Millisecond, noteHas: "not within 0.3 s", timedOut: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newFakeView()
				leader := v.leader(0)
				actor := newEventActor(func(_ context.Context, action string, broker int32) error {
					if tt.act != nil {
						tt.act(v, action, broker)
					}
					return nil
				})
				tl, err := Start(context.Background(), Config{
					view: v, Topics: []string{"t"}, Actor: actor, Poll: 10 * time.Millisecond,
					MeasureFor: tt.measure, Settle: 100 * time.Millisecond, Faults: tt.faults,
				}, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				actor.await(t, fmt.Sprintf("%s %d", tt.await, leader), 20*time.Second)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				first := tl.Finish(ctx)[0]
				if first.Election != nil || first.ElectionTimedOut != tt.timedOut || !strings.Contains(first.ElectionNote, tt.noteHas) || !strings.Contains(first.ElectionNote, tt.noteAlso) {
					t.Errorf("election %v, timed out %v, note %q; want none, timed out %v, a note with %q and %q",
						first.Election, first.ElectionTimedOut, first.ElectionNote, tt.timedOut, tt.noteHas, tt.noteAlso)
				}
			})
		})
	}
}

// TestTimelineEnd: a fault whose broker is busy with another action
// cannot happen, and says why; faults not yet due when sending ends are
// not reached, with their time; End waits for the action under way, then
// heals, before the workloads have finished.
func TestTimelineEnd(t *testing.T) {
	_, opts := cluster(t)
	release := make(chan struct{})
	actor := &healActor{eventActor: newEventActor(func(ctx context.Context, action string, _ int32) error {
		if action == faults.Restart {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return nil
	})}
	logs := make(chan string, 64)
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor, MeasureFor: time.Second,
		Logf: func(format string, args ...any) { logs <- fmt.Sprintf(format, args...) },
		Faults: []faults.Fault{
			{Name: "r", Action: faults.Restart, Target: faults.Target{Broker: 1}},
			{Action: faults.Kill, Target: faults.Target{Broker: 1}, At: 50 * time.Millisecond},
			{Name: "late", Action: faults.Pause, Target: faults.Target{Broker: 2}, At: time.Hour},
			{Action: faults.Resume, Target: faults.Target{Broker: 2}, After: "late"},
		},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	actor.await(t, "restart 1", 20*time.Second)
	awaitLog(t, logs, "fault kill broker 1 could not happen")
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tl.End(ctx)
	if actor.heals.Load() != 1 {
		t.Errorf("End healed %d times, want once", actor.heals.Load())
	}
	rs := tl.Finish(ctx)
	if kill := rs[1]; kill.Status != StatusFailed || !strings.Contains(kill.Error, "broker 1 is still busy with fault r, begun at 0.0 s") {
		t.Errorf("kill %+v; want failed: its broker is busy with the restart", kill)
	}
	if late := rs[2]; late.Status != StatusNotReached || !strings.Contains(late.Note, "before its time (3600.0 s)") {
		t.Errorf("pause %+v; want not reached, with its time", late)
	}
	if rs[3].Status != StatusNotReached || !strings.Contains(rs[3].Note, `fault "late" it follows did not happen`) {
		t.Errorf("resume %+v; want not reached: the pause it follows did not happen", rs[3])
	}
	if len(rs) != 5 || rs[4].Name != "heal" || rs[4].Status != StatusDone {
		t.Fatalf("results %+v; want the four faults and a heal", rs)
	}
}

// healActor is an eventActor whose Heal restarts broker 1.
type healActor struct {
	*eventActor
	heals atomic.Int32
}

func (a *healActor) Heal(context.Context) ([]faults.Healed, error) {
	a.heals.Add(1)
	return []faults.Healed{{Broker: 1, Action: faults.Restart}}, nil
}

// awaitLog waits for a log line containing want.
func awaitLog(t *testing.T, logs <-chan string, want string) {
	t.Helper()
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	for {
		select {
		case l := <-logs:
			if strings.Contains(l, want) {
				return
			}
		case <-timer.C:
			t.Fatalf("no log line with %q within 20 s", want)
		}
	}
}
