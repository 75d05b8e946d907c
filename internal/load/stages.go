package load

import (
	"fmt"
	"math"
	"time"
)

// Stage is one stage of a ramping load: over Duration the rate moves in a
// straight line from the previous stage's target (0 before the first) to
// Rate, as k6's ramping-arrival-rate does. Repeat a target to hold it.
type Stage struct {
	Duration time.Duration
	Rate     float64 // records per second at the stage's end
}

// schedule is the stages as cumulative counts: stage k starts at time
// start[k] with count[k] records due before it.
type schedule struct {
	stages        []Stage
	start         []float64 // seconds
	count         []float64 // records due before the stage
	from          []float64 // the rate at the stage's start
	total, totalT float64
}

// NewStagedPacer returns a pacer whose intended send times follow the
// stages; records past the last stage are never due (the run's duration
// is the stages' sum).
func NewStagedPacer(stages []Stage) (Pacer, error) {
	s := &schedule{stages: stages}
	prev, t, n := 0.0, 0.0, 0.0
	for i, st := range stages {
		if st.Duration <= 0 || st.Rate < 0 || math.IsInf(st.Rate, 0) || math.IsNaN(st.Rate) {
			return Pacer{}, fmt.Errorf("stage %d: needs a positive duration and a rate of 0 or more", i)
		}
		d := st.Duration.Seconds()
		s.start = append(s.start, t)
		s.count = append(s.count, n)
		s.from = append(s.from, prev)
		n += (prev + st.Rate) / 2 * d
		t += d
		prev = st.Rate
	}
	s.total, s.totalT = n, t
	return Pacer{sched: s}, nil
}

// due is the intended send time of record i.
func (s *schedule) due(i int64) time.Duration {
	x := float64(i)
	if x >= s.total {
		return time.Duration(math.MaxInt64)
	}
	k := len(s.stages) - 1
	for k > 0 && s.count[k] > x {
		k--
	}
	c := x - s.count[k]
	a := (s.stages[k].Rate - s.from[k]) / (2 * s.stages[k].Duration.Seconds())
	b := s.from[k]
	var dt float64
	switch {
	case math.Abs(a) < 1e-12:
		dt = c / b
	default:
		// a*dt² + b*dt = c, the root within the stage.
		dt = (-b + math.Sqrt(b*b+4*a*c)) / (2 * a)
	}
	return time.Duration((s.start[k] + dt) * float64(time.Second))
}

// RateAt is the rate the stages ask for at t since their start: on each
// stage's line from the previous target (0 before the first) to its own;
// past the last stage, 0 (nothing more is due).
func RateAt(stages []Stage, t time.Duration) float64 {
	prev := 0.0
	for _, st := range stages {
		if t < st.Duration {
			if t < 0 {
				return prev
			}
			return prev + (st.Rate-prev)*float64(t)/float64(st.Duration)
		}
		t -= st.Duration
		prev = st.Rate
	}
	return 0
}
