package result

import (
	"math"
	"time"
)

// Steps is one figure of one broker through a repeat, one number per
// step, kept compact for the report's charts: Values[i] is the figure
// over the step from Start + i×Step to Start + (i+1)×Step seconds; null
// where nothing was read in that step (a broker down).
type Steps struct {
	Start  time.Time  `json:"start"`
	Step   float64    `json:"step_seconds"`
	Values []*float64 `json:"values"`
}

// Ratios builds Steps from readings of two counters whose increases make
// a ratio over time (CPU seconds over wall seconds; idle nanoseconds over
// nanoseconds). A reading's increases are spread over the steps its span
// overlaps, in proportion: the samplers' tickers drift and skip, the
// steps do not.
type Ratios struct {
	start    time.Time
	step     float64
	num, den []float64
	covered  []float64 // seconds of each step some reading spans
}

// NewRatios starts Steps at start, step long.
func NewRatios(start time.Time, step time.Duration) *Ratios {
	return &Ratios{start: start, step: step.Seconds()}
}

// Add takes a reading spanning from to to (seconds after start) over
// which the counters increased by num and den.
func (r *Ratios) Add(from, to, num, den float64) {
	if to <= from || r.step <= 0 || from < 0 {
		return
	}
	for i := int(from / r.step); float64(i)*r.step < to; i++ {
		lo, hi := max(from, float64(i)*r.step), min(to, float64(i+1)*r.step)
		if hi <= lo {
			continue
		}
		for len(r.num) <= i {
			r.num, r.den, r.covered = append(r.num, 0), append(r.den, 0), append(r.covered, 0)
		}
		share := (hi - lo) / (to - from)
		r.num[i] += num * share
		r.den[i] += den * share
		r.covered[i] += hi - lo
	}
}

// minCovered is the share of a step readings must span for it to have a
// value: the last, partial step of a repeat read for a few milliseconds
// would show a tick's CPU as cores.
const minCovered = 0.25

// Steps returns the steps' values, each f of its ratio rounded to
// decimals; nil when no step has one.
func (r *Ratios) Steps(f func(ratio float64) float64, decimals int) *Steps {
	s := &Steps{Start: r.start, Step: r.step, Values: make([]*float64, len(r.num))}
	p := math.Pow10(decimals)
	some := false
	for i := range r.num {
		if r.den[i] <= 0 || r.covered[i] < minCovered*r.step {
			continue
		}
		v := math.Round(f(r.num[i]/r.den[i])*p) / p
		s.Values[i], some = &v, true
	}
	if !some {
		return nil
	}
	return s
}

// Cores is a CPU-seconds-per-second ratio as it stands: cores used.
func Cores(ratio float64) float64 { return ratio }

// BusyPct is an idle ratio as a busy share in percent, the ratio clamped
// to [0, 1]: Kafka's idle meter is marked when a handler returns from
// its poll, so a step's idle time may exceed the step's.
func BusyPct(idle float64) float64 { return 100 * (1 - min(max(idle, 0), 1)) }

// At is where step i ends, in seconds after t0.
func (s *Steps) At(i int, t0 time.Time) float64 {
	return s.Start.Sub(t0).Seconds() + float64(i+1)*s.Step
}
