package load

import (
	"testing"
	"time"
)

// TestRateController is OMB's RateControllerTest: the same steps, the same
// rates and ramping factors.
func TestRateController(t *testing.T) {
	t.Parallel()
	type step struct {
		published, received int64
		rate, ramping       float64
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"receive backlog", []step{{10_000, 10_000, 20_000, 1}, {20_000, 15_000, 5_000, 0.5}}},
		{"publish backlog", []step{{10_000, 10_000, 20_000, 1}, {15_000, 20_000, 5_000, 0.5}}},
		{"ramp up", []step{{10_000, 5_000, 5_000, 0.5}, {20_000, 20_000, 10_000, 1}}},
	} {
		c := newRateController()
		rate := 10_000.0
		for i, s := range tc.steps {
			rate = c.nextRate(rate, time.Second, s.published, s.received)
			if rate != s.rate || c.ramping != s.ramping {
				t.Errorf("%s, step %d: rate %v ramping %v, want %v and %v", tc.name, i, rate, c.ramping, s.rate, s.ramping)
			}
		}
	}
}

// TestBalancedSchedule: each client's records are due at its share of the
// rate, and a rate change moves the records after it, not those before.
func TestBalancedSchedule(t *testing.T) {
	t.Parallel()
	b := NewBalance(1000, 2)
	start := time.Unix(100, 0)
	stop := b.Start(start)
	stop()
	p := NewBalancedPacer(b, start)
	// 2 clients at 1000/s: each at 500/s, one record every 2 ms.
	if got := p.Due(10); got != 20*time.Millisecond {
		t.Errorf("record 10 due at %v, want 20ms", got)
	}
	// At 1 s the rate doubles: 1000 records were due before it; the
	// client's record 600 is the 1200th overall, 200 past 1 s at 2000/s.
	b.set(start.Add(time.Second), 2000)
	if got := p.Due(400); got != 800*time.Millisecond {
		t.Errorf("record 400 due at %v, want 800ms (before the change)", got)
	}
	if got := p.Due(600); got != 1100*time.Millisecond {
		t.Errorf("record 600 due at %v, want 1.1s", got)
	}
	// A client started 50 ms after the schedule counts from its start.
	late := NewBalancedPacer(b, start.Add(50*time.Millisecond))
	if got := late.Due(10); got != -30*time.Millisecond {
		t.Errorf("late client's record 10 due at %v, want -30ms (already due)", got)
	}
	// The controller never sets 0: OMB's would stay there.
	b.set(start.Add(2*time.Second), 0)
	if r := b.rate(); r != minBalancedRate {
		t.Errorf("rate %v after 0, want %v", r, minBalancedRate)
	}
	if pts := b.Rates(); len(pts) != 3 || pts[0].Rate != 1000 || pts[1].Rate != 2000 || pts[1].Elapsed != time.Second {
		t.Errorf("rates %+v", pts)
	}
}

// TestBalanceStartStop: the controller runs while any producer does and
// the last stop waits for it.
func TestBalanceStartStop(t *testing.T) {
	t.Parallel()
	b := NewBalance(OMBStartRate, 1)
	now := time.Now()
	stop1, stop2 := b.Start(now), b.Start(now.Add(time.Millisecond))
	stop1()
	stop1() // a second call is harmless
	select {
	case <-b.done:
		t.Fatal("the controller stopped while a producer runs")
	default:
	}
	stop2()
	<-b.done
	if b.origin.Load() != now.UnixNano() {
		t.Error("the schedule does not start at the first producer's start")
	}
}
