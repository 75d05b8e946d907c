package faults

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
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
}

func (a *netActor) Shape(_ context.Context, op string, l Link, p Params) (string, error) {
	a.note("shape " + op + " " + l.String())
	if op == Cut && l[1].Controllers && len(l[0].Nodes) == 1 {
		b := l[0].Nodes[0]
		time.AfterFunc(200*time.Millisecond, func() { a.v.move(b, next(b)) })
		time.AfterFunc(300*time.Millisecond, func() { a.v.dropISR(b) })
	}
	return "shaped\n", nil
}

func (a *netActor) Unshape(_ context.Context, op string, l Link) (string, error) {
	a.note("unshape " + op + " " + l.String())
	a.v.fillISR()
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

func leaderSide(p int32) Side {
	return Side{Targets: []Target{{Leader: &Partition{Topic: "t", Partition: p}}}}
}

func TestTimelineNetworkFaults(t *testing.T) {
	quorum := Side{Brokers: true, Controllers: true}
	tests := []struct {
		name   string
		faults []Fault
		events string
		check  func(t *testing.T, rs []Result)
	}{{
		name: "a partition with a duration heals itself, its election and ISR recovery measured",
		faults: []Fault{{Action: Cut, At: time.Second, Between: []Side{leaderSide(1), quorum},
			Params: Params{"duration": 2 * time.Second}}},
		events: "shape partition broker 2 ↔ every broker and every controller at 1s; unshape partition broker 2 ↔ every broker and every controller at 3s",
		check: func(t *testing.T, rs []Result) {
			r := rs[0]
			if r.Status != StatusDone || r.Broker != 2 || !r.Away || r.Election == nil || *r.Election < 200*time.Millisecond || *r.Election > 250*time.Millisecond {
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
		name: "an explicit heal undoes its fault once",
		faults: []Fault{
			{Name: "cut", Action: Cut, At: time.Second, Between: []Side{leaderSide(0), {Clients: true}}},
			{Action: HealLink, Target: Target{Fault: "cut"}, After: "cut", At: 2 * time.Second},
		},
		events: "shape partition broker 1 ↔ the clients at 1s; unshape partition broker 1 ↔ the clients at 3s",
		check: func(t *testing.T, rs []Result) {
			if rs[0].Away != true || rs[0].Election != nil {
				t.Errorf("cut from the clients %+v; want its gaps (away) but no election: its leaders do not move", rs[0])
			}
			if rs[1].Status != StatusDone || rs[1].Output != "unshaped\n" || len(rs) != 2 {
				t.Errorf("results %+v; want the heal done, and no heal row at the end", rs)
			}
		},
	}, {
		name:   "a link between a broker and itself fails",
		faults: []Fault{{Action: Delay, At: time.Second, Between: []Side{leaderSide(1), {Targets: []Target{{Broker: 2}}}}, Params: Params{"latency": 20 * time.Millisecond}}},
		check: func(t *testing.T, rs []Result) {
			if rs[0].Status != StatusFailed || !strings.Contains(rs[0].Error, "both ends of the link are broker 2") {
				t.Errorf("delay %+v; want failed: both ends are broker 2", rs[0])
			}
		},
	}, {
		name:   "a delay left in place is undone at the end",
		faults: []Fault{{Action: Delay, At: time.Second, Between: []Side{{Brokers: true}, {Brokers: true}}, Params: Params{"latency": 20 * time.Millisecond}}},
		events: "shape delay every broker ↔ every broker at 1s; unshape delay every broker ↔ every broker at 5s",
		check: func(t *testing.T, rs []Result) {
			if len(rs) != 2 || rs[0].Broker != -1 || !rs[0].Away || rs[1].Name != "heal" || rs[1].Status != StatusDone {
				t.Errorf("results %+v; want the delay (no single broker, its gaps counted) and its heal at the end", rs)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newFakeView()
				a := &netActor{eventActor: *newEventActor(nil), v: v, start: time.Now()}
				tl, err := Start(context.Background(), Config{view: v, Topics: []string{"t"}, Actor: a, Faults: tc.faults}, a.start)
				if err != nil {
					t.Fatal(err)
				}
				time.Sleep(5 * time.Second)
				rs := tl.Finish(context.Background())
				if got := a.events(); got != tc.events {
					t.Errorf("network events:\n %s\nwant\n %s", got, tc.events)
				}
				tc.check(t, rs)
			})
		})
	}
}

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
