package timeline

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// netActor records the network faults set and cleared, at the bubble's
// time since start; shaping a link cut from the controllers moves its
// broker's leaders 200 ms later, as a fencing would.
type netActor struct {
	eventActor
	v     *fakeView
	start time.Time
	mu    sync.Mutex
	log   []string
	// lateFence: the controller fences the healed broker 300 ms after
	// the heal, and its ISRs are full again 6.7 s after it.
	lateFence bool
}

func (a *netActor) Shape(_ context.Context, k faults.Kind, l faults.Link, p faults.Params) (string, error) {
	a.note("shape " + k.Name + " " + l.String())
	if k.Name == faults.Cut && l[1].Controllers && len(l[0].Nodes) == 1 {
		b := l[0].Nodes[0]
		time.AfterFunc(200*time.Millisecond, func() { a.v.move(b, next(b)) })
		time.AfterFunc(300*time.Millisecond, func() { a.v.dropISR(b) })
	}
	return "shaped\n", nil
}

func (a *netActor) Unshape(_ context.Context, k faults.Kind, l faults.Link) (string, error) {
	a.note("unshape " + k.Name + " " + l.String())
	a.v.fillISR()
	if a.lateFence && len(l[0].Nodes) == 1 {
		b := l[0].Nodes[0]
		time.AfterFunc(300*time.Millisecond, func() { a.v.dropISR(b) })
		time.AfterFunc(6700*time.Millisecond, a.v.fillISR)
	}
	return "unshaped\n", nil
}

func (a *netActor) note(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.log = append(a.log, s+" at "+time.Since(a.start).String())
}

func (a *netActor) events() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.log, "; ")
}

// dropISR takes broker out of every ISR, as a fencing does; the ISRs are
// full again at the next move of anything (a heal's metadata).
func (v *fakeView) dropISR(broker int32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, d := range v.parts {
		isr := []int32{}
		for _, r := range d.ISR {
			if r != broker {
				isr = append(isr, r)
			}
		}
		d.ISR = isr
	}
}

// fillISR puts every replica back in sync.
func (v *fakeView) fillISR() {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, d := range v.parts {
		d.ISR = append([]int32(nil), d.Replicas...)
	}
}

func leaderSide(p int32) faults.Side {
	return faults.Side{Targets: []faults.Target{{Leader: &faults.Partition{Topic: "t", Partition: p}}}}
}

func TestTimelineNetworkFaults(t *testing.T) {
	quorum := faults.Side{Brokers: true, Controllers: true}
	tests := []struct {
		name      string
		faults    []faults.Fault
		lateFence bool
		events    string
		check     func(t *testing.T, rs []Result)
	}{{
		name: "a partition with a duration heals itself, its election and ISR recovery measured",
		faults: []faults.Fault{{Action: faults.Cut, At: time.Second, Between: []faults.Side{leaderSide(1), quorum},
			Params: faults.Params{"duration": 2 * time.Second}}},
		events: "shape partition broker 2 ↔ every broker and every controller at 1s; unshape partition broker 2 ↔ every broker and every controller at 3s",
		check: func(t *testing.T, rs []Result) {
			r := rs[0]
			if r.Status != StatusDone || r.Broker != 2 || !r.Gaps || r.Election == nil || *r.Election < 200*time.Millisecond || *r.Election > 250*time.Millisecond {
				t.Errorf("partition %+v; want done on broker 2, away, its election 200 ms after the cut", r)
			}
			if r.ISRShrunk == nil || *r.ISRShrunk < 300*time.Millisecond || *r.ISRShrunk > 350*time.Millisecond {
				t.Errorf("ISR shrunk %v; want 300 ms after the cut (to within a 50 ms poll)", r.ISRShrunk)
			}
			if r.ISRRecovered == nil || *r.ISRRecovered > 100*time.Millisecond {
				t.Errorf("ISR recovered %v; want measured from the heal at 3 s (the ISRs were full at once)", r.ISRRecovered)
			}
			if len(rs) != 1 {
				t.Errorf("results %+v; a partition that healed itself has nothing left to undo", rs)
			}
		},
	}, {
		// Regression: "every in-sync replica set is full after 15ms", where
		// the controller fenced the broker 0.5 s after the heal and the ISRs
		// were full again only 6.7 s after it.
		name: "a fencing after the heal: the ISR recovery is the full ISRs after it",
		faults: []faults.Fault{{Action: faults.Cut, At: time.Second, Between: []faults.Side{leaderSide(1), quorum},
			Params: faults.Params{"duration": 2 * time.Second}}},
		lateFence: true,
		events:    "shape partition broker 2 ↔ every broker and every controller at 1s; unshape partition broker 2 ↔ every broker and every controller at 3s",
		check: func(t *testing.T, rs []Result) {
			if r := rs[0]; r.ISRRecovered == nil || *r.ISRRecovered < 6700*time.Millisecond || *r.ISRRecovered > 6800*time.Millisecond {
				t.Errorf("ISR recovered %v; want 6.7 s after the heal, when the ISRs were full again after the late fencing", r.ISRRecovered)
			}
		},
	}, {
		name: "an explicit heal undoes its fault once",
		faults: []faults.Fault{
			{Name: "cut", Action: faults.Cut, At: time.Second, Between: []faults.Side{leaderSide(0), {Clients: true}}},
			{Action: faults.HealLink, Target: faults.Target{Fault: "cut"}, After: "cut", At: 2 * time.Second},
		},
		events: "shape partition broker 1 ↔ the clients at 1s; unshape partition broker 1 ↔ the clients at 3s",
		check: func(t *testing.T, rs []Result) {
			if !rs[0].Gaps || rs[0].Election != nil {
				t.Errorf("cut from the clients %+v; want its gaps (away) but no election: its leaders do not move", rs[0])
			}
			if rs[1].Status != StatusDone || rs[1].Output != "unshaped\n" || len(rs) != 2 {
				t.Errorf("results %+v; want the heal done, and no heal row at the end", rs)
			}
		},
	}, {
		// Issue 41: a leader cut from the other brokers keeps its
		// controller session: no election, and the watch ends at the heal
		// with words, not "not within 120 s"; a later fault's ISR shrink
		// is that fault's, not the healed one's.
		name: "a leader cut from the other brokers only keeps its partitions",
		faults: []faults.Fault{
			{Action: faults.Cut, At: time.Second, Between: []faults.Side{leaderSide(1), {Brokers: true}}, Params: faults.Params{"duration": time.Second}},
			{Action: faults.Cut, At: 3 * time.Second, Between: []faults.Side{{Targets: []faults.Target{{Broker: 2}}}, quorum}, Params: faults.Params{"duration": time.Second}},
		},
		events: "shape partition broker 2 ↔ every broker at 1s; unshape partition broker 2 ↔ every broker at 2s; " +
			"shape partition broker 2 ↔ every broker and every controller at 3s; unshape partition broker 2 ↔ every broker and every controller at 4s",
		check: func(t *testing.T, rs []Result) {
			r := rs[0]
			if r.Cut != CutBrokers || r.Election != nil || r.ElectionNote != "none: broker 2 was healed before the cluster moved its leaders" || len(r.Affected) != 1 {
				t.Errorf("cut from the brokers %+v; want its leaders watched, none moved, the watch ended by the heal", r)
			}
			if r.ISRShrunk != nil {
				t.Errorf("cut from the brokers: ISR shrunk after %v; the shrink came with the next fault", *r.ISRShrunk)
			}
			if q := rs[1]; q.Cut != CutQuorum || q.ISRShrunk == nil || q.Election == nil {
				t.Errorf("cut from the quorum %+v; want its election and ISR shrink", q)
			}
		},
	}, {
		name:   "a link between a broker and itself fails",
		faults: []faults.Fault{{Action: faults.Delay, At: time.Second, Between: []faults.Side{leaderSide(1), {Targets: []faults.Target{{Broker: 2}}}}, Params: faults.Params{"latency": 20 * time.Millisecond}}},
		check: func(t *testing.T, rs []Result) {
			if rs[0].Status != StatusFailed || !strings.Contains(rs[0].Error, "both ends of the link are broker 2") {
				t.Errorf("delay %+v; want failed: both ends are broker 2", rs[0])
			}
		},
	}, {
		// A delay makes nothing unavailable: a 0 ms delay was given the
		// load's own gaps between acknowledgements (433-529 ms) as its
		// unavailable_ms.
		name:   "a delay left in place is undone at the end, its gaps not the fault's",
		faults: []faults.Fault{{Action: faults.Delay, At: time.Second, Between: []faults.Side{{Brokers: true}, {Brokers: true}}, Params: faults.Params{"latency": time.Duration(0)}}},
		events: "shape delay every broker ↔ every broker at 1s; unshape delay every broker ↔ every broker at 5s",
		check: func(t *testing.T, rs []Result) {
			if len(rs) != 2 || rs[0].Broker != -1 || rs[0].Gaps || rs[1].Name != "heal" || rs[1].Status != StatusDone {
				t.Errorf("results %+v; want the delay (no single broker, no gaps of its own) and its heal at the end", rs)
			}
		},
	}, {
		name:   "a bandwidth limit slows, its gaps not the fault's",
		faults: []faults.Fault{{Action: faults.Bandwidth, At: time.Second, Between: []faults.Side{leaderSide(1), {Clients: true}}, Params: faults.Params{"rate": int64(1 << 20), "duration": time.Second}}},
		events: "shape bandwidth broker 2 ↔ the clients at 1s; unshape bandwidth broker 2 ↔ the clients at 2s",
		check: func(t *testing.T, rs []Result) {
			if rs[0].Status != StatusDone || rs[0].Gaps {
				t.Errorf("bandwidth %+v; want done, no gaps of its own", rs[0])
			}
		},
	}, {
		name:   "a loss stalls connections, its gaps the fault's",
		faults: []faults.Fault{{Action: faults.Loss, At: time.Second, Between: []faults.Side{leaderSide(1), {Clients: true}}, Params: faults.Params{"share": 0.1, "duration": time.Second}}},
		events: "shape loss broker 2 ↔ the clients at 1s; unshape loss broker 2 ↔ the clients at 2s",
		check: func(t *testing.T, rs []Result) {
			if rs[0].Status != StatusDone || !rs[0].Gaps {
				t.Errorf("loss %+v; want done, its gaps counted", rs[0])
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newFakeView()
				a := &netActor{eventActor: *newEventActor(nil), v: v, start: time.Now(), lateFence: tc.lateFence}
				tl, err := Start(context.Background(), Config{view: v, Topics: []string{"t"}, Actor: a, Faults: tc.faults, Settle: 500 * time.Millisecond}, a.start)
				if err != nil {
					t.Fatal(err)
				}
				wait := 5 * time.Second
				if tc.lateFence {
					wait = 12 * time.Second // the ISRs are full again at 9.7 s
				}
				time.Sleep(wait)
				rs := tl.Finish(context.Background())
				if got := a.events(); got != tc.events {
					t.Errorf("network events:\n %s\nwant\n %s", got, tc.events)
				}
				tc.check(t, rs)
			})
		})
	}
}
