package study

import (
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// simCluster is a cluster for the rate search to probe without one: its
// p99 grows as the rate nears saturation (1.25 × capacity, so that the
// noise-free p99 is at the 50 ms limit at capacity), with log-normal
// noise and an occasional stall (×4); the rate reached falls short near
// saturation. Seeded: a failure reproduces.
type simCluster struct {
	rng      *rand.Rand
	capacity float64
	clock    time.Time
	runs     int
}

const simLimitMs = 50

func (c *simCluster) run(r float64, d time.Duration) (result.Probe, result.Repeat, bool) {
	c.clock = c.clock.Add(d + time.Second) // a run's setup and drain
	c.runs++
	sat := 1.25 * c.capacity
	if r == 0 { // full speed
		return result.Probe{Achieved: 0.97 * sat, LatencyMs: 400, Records: 10000}, result.Repeat{Status: result.StatusOK}, true
	}
	lat := 1000.0
	if x := r / sat; x < 1 {
		lat = 10 / (1 - x)
	}
	lat *= math.Exp(0.2 * c.rng.NormFloat64())
	if c.rng.Float64() < 0.05 {
		lat *= 4
	}
	ach := r * (1 - 0.01*math.Abs(c.rng.NormFloat64()))
	ach = min(ach, 0.97*sat*(1+0.03*c.rng.NormFloat64()))
	p := result.Probe{Rate: r, Achieved: ach, LatencyMs: lat, Records: 5000}
	p.OK = lat <= simLimitMs && ach >= result.KeepUp*r
	return p, result.Repeat{Index: c.runs, Status: result.StatusOK}, true
}

// simSearch runs a whole search (3 probes a rate, 5 confirming runs) on a
// simulated cluster of the capacity, seeded.
func simSearch(seed int64, capacity float64, mr plan.MaxRate) (*course, float64) {
	sim := &simCluster{rng: rand.New(rand.NewSource(seed)), capacity: capacity, clock: time.Unix(0, 0)}
	c := &course{mr: &mr, workload: "p", run: sim.run, base: 10 * time.Second,
		duration: func(float64) time.Duration { return 10 * time.Second },
		now:      func() time.Time { return sim.clock }, progress: func(string) {}}
	rate, _ := c.search()
	return c, rate
}

func simPlan() plan.MaxRate {
	return plan.MaxRate{Percentile: 0.99, Limit: simLimitMs * time.Millisecond, Start: 1000, Probes: 3, Confirm: 5,
		WarmCluster: 30 * time.Second, Floor: 100, MaxTime: time.Hour}
}

// TestSearchConverges: the search judges each rate by the confirmation's
// own rule, so the rate it hands to the confirmation is confirmed as it
// is in most searches (regression: a median of three let rates through
// that 4 of 5 independent runs then missed, and the confirmation stepped
// down one to three times), and searches of one cluster agree: the
// middle 80% of the answers within 15% of each other. (The same
// simulation with the median of three: 43 of 200 searches confirmed
// without a step down at 7,000 records/s.)
func TestSearchConverges(t *testing.T) {
	for _, capacity := range []float64{3000, 7000, 20000} {
		t.Run(strconv.FormatFloat(capacity, 'f', 0, 64), func(t *testing.T) { searchConverges(t, capacity) })
	}
}

func searchConverges(t *testing.T, capacity float64) {
	const seeds = 200
	var answers []float64
	noStep, oneStep := 0, 0
	for seed := int64(1); seed <= seeds; seed++ {
		c, rate := simSearch(seed, capacity, simPlan())
		f := c.found
		if rate <= 0 || rate != f.Rate {
			t.Fatalf("seed %d: no confirmed answer (found %.0f, confirmations %+v)", seed, f.Found, f.Confirmations)
		}
		switch len(f.Confirmations) {
		case 1:
			noStep++
		case 2:
			oneStep++
		}
		if rate > 1.05*capacity {
			t.Errorf("seed %d: answer %.0f records/s above the capacity %.0f", seed, rate, capacity)
		}
		answers = append(answers, rate)
	}
	slices.Sort(answers)
	lo, hi := answers[seeds/10], answers[seeds-seeds/10-1]
	t.Logf("%d of %d searches confirmed without a step down, %d with one; answers %.0f to %.0f (middle 80%%: %.0f to %.0f)",
		noStep, seeds, oneStep, answers[0], answers[seeds-1], lo, hi)
	if noStep < seeds*3/4 {
		t.Errorf("%d of %d searches needed no step down: want at least 75%%", noStep, seeds)
	}
	if noStep+oneStep < seeds*95/100 {
		t.Errorf("%d of %d searches needed at most one step down: want at least 95%%", noStep+oneStep, seeds)
	}
	if (hi-lo)/hi > 0.15 {
		t.Errorf("the middle 80%% of the answers span %.0f to %.0f: more than 15%% apart", lo, hi)
	}
}

// TestSearchBounds: the search asks no rate below its floor and stops
// there when even the floor misses (regression: it halved on below 1
// record/s, up to 10 rates of 3 slow probes); it stops at its time bound
// with no answer and says so; it asks no rate above a ceiling and answers
// the ceiling when it is met. Every run's start is announced with its
// rate, which of how many it is, and how many may follow within the
// bound.
func TestSearchBounds(t *testing.T) {
	t.Run("floor", func(t *testing.T) {
		mr := simPlan()
		c, rate := simSearch(1, 50, mr) // saturated from 62 records/s
		f := c.found
		if rate != 0 || f.Stopped != "floor" || f.Found != 0 {
			t.Fatalf("rate %.0f, stopped %q: want none, stopped at the floor", rate, f.Stopped)
		}
		for _, p := range f.Probes {
			if !p.Warmup && p.Rate < mr.Floor {
				t.Errorf("a probe at %.0f records/s, under the floor %.0f", p.Rate, mr.Floor)
			}
		}
		if last := f.Probes[len(f.Probes)-1]; last.Rate != mr.Floor {
			t.Errorf("the last probe at %.0f, want the floor %.0f", last.Rate, mr.Floor)
		}
		if msg := c.noAnswer(); !strings.Contains(msg, "even the floor, 100 records/s, missed it (1 over the latency limit") {
			t.Errorf("no answer: %q", msg)
		}
	})
	t.Run("max_time", func(t *testing.T) {
		mr := simPlan()
		mr.MaxTime = 3 * time.Minute
		var infos []observe.ProbeInfo
		sim := &simCluster{rng: rand.New(rand.NewSource(1)), capacity: 7000, clock: time.Unix(0, 0)}
		c := &course{mr: &mr, workload: "p", run: sim.run, base: 10 * time.Second,
			duration: func(float64) time.Duration { return 10 * time.Second },
			now:      func() time.Time { return sim.clock }, progress: func(string) {},
			started: func(pi observe.ProbeInfo) { infos = append(infos, pi) }}
		rate, _ := c.search()
		f := c.found
		if rate != 0 || f.Stopped != "max_time" || !c.timeUp {
			t.Fatalf("rate %.0f, stopped %q: want none, stopped at the time bound", rate, f.Stopped)
		}
		if end := sim.clock.Sub(time.Unix(0, 0)); end > mr.MaxTime {
			t.Errorf("the search took %s, bound %s", end, mr.MaxTime)
		}
		if msg := c.noAnswer(); !strings.Contains(msg, "time bound (max_time 3m0s)") || !strings.Contains(msg, "it had met") {
			t.Errorf("no answer: %q", msg)
		}
		if len(infos) != sim.runs {
			t.Fatalf("%d runs announced of %d", len(infos), sim.runs)
		}
		for i, pi := range infos {
			if pi.Workload != "p" || pi.Probe < 1 || pi.Probe > pi.Probes || pi.Deadline != time.Unix(0, 0).Add(mr.MaxTime) {
				t.Errorf("run %d announced as %+v", i, pi)
			}
			// What may follow fits in the time left after this run.
			if left := pi.Deadline.Sub(time.Unix(0, 0)) - time.Duration(i)*11*time.Second; time.Duration(pi.MoreAtMost)*10*time.Second > left {
				t.Errorf("run %d: at most %d more runs of 10 s announced with %s left", i, pi.MoreAtMost, left)
			}
		}
		if infos[0].Step != "warm-up" || infos[1].Step != "search" || infos[1].Rate != 1000 || infos[1].Probes != 3 {
			t.Errorf("first runs announced as %+v, %+v", infos[0], infos[1])
		}
	})
	t.Run("ceiling", func(t *testing.T) {
		mr := simPlan()
		mr.Ceiling = 3000
		c, rate := simSearch(1, 7000, mr)
		f := c.found
		if rate != 3000 || f.Stopped != "ceiling" || f.Limit != "not reached" {
			t.Fatalf("rate %.0f, stopped %q, limit %q: want the ceiling, 3000", rate, f.Stopped, f.Limit)
		}
		for _, p := range f.Probes {
			if p.Rate > mr.Ceiling {
				t.Errorf("a probe at %.0f records/s, above the ceiling", p.Rate)
			}
		}
	})
}
