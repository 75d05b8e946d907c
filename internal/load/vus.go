package load

import (
	"fmt"
	"time"
)

// VUStage is one stage of a ramping closed load: over Duration the number
// of virtual users moves in a straight line from the previous stage's
// target (the ramp's start before the first) to Target, as k6's
// ramping-vus executor does. Repeat a target to hold it.
type VUStage struct {
	Duration time.Duration
	Target   int
}

// VURamp says how many virtual users are active at each moment of a
// ramping closed load. Users are numbered from 0; the first Active(t) are
// active at t. As in k6, the count moves by whole users at evenly spaced
// moments: rising, user n joins once the line reaches n+1; falling, user n
// leaves once it drops to n (a leaving user finishes the record it has in
// flight).
type VURamp struct {
	start  int
	stages []VUStage
	begin  []time.Duration // each stage's start
	max    int
}

// NewVURamp returns the ramp from start users through the stages.
func NewVURamp(start int, stages []VUStage) (*VURamp, error) {
	if start < 0 {
		return nil, fmt.Errorf("start of %d virtual users: want 0 or more", start)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("a ramp of virtual users needs at least one stage")
	}
	r := &VURamp{start: start, stages: stages, max: start}
	var t time.Duration
	for i, st := range stages {
		if st.Duration <= 0 || st.Target < 0 {
			return nil, fmt.Errorf("stage %d: needs a positive duration and a target of 0 or more users", i)
		}
		r.begin = append(r.begin, t)
		t += st.Duration
		r.max = max(r.max, st.Target)
	}
	return r, nil
}

// Max is the most users active at once.
func (r *VURamp) Max() int { return r.max }

// Duration is the ramp's length: the stages' sum.
func (r *VURamp) Duration() time.Duration {
	last := len(r.stages) - 1
	return r.begin[last] + r.stages[last].Duration
}

// from is the number of users at the start of stage k.
func (r *VURamp) from(k int) int {
	if k == 0 {
		return r.start
	}
	return r.stages[k-1].Target
}

// Active is the number of users active at t since the start; past the last
// stage, its target.
func (r *VURamp) Active(t time.Duration) int {
	if t < 0 {
		return r.start
	}
	for k, st := range r.stages {
		if t >= r.begin[k]+st.Duration {
			continue
		}
		a, b, e := r.from(k), st.Target, t-r.begin[k]
		// Integer arithmetic: the step moments are exact. Go's division
		// truncates toward zero: down when rising, up when falling.
		return a + int(int64(b-a)*int64(e)/int64(st.Duration))
	}
	return r.stages[len(r.stages)-1].Target
}

// Next is the first moment at or after t at which user u is active; ok is
// false when it is not again before the ramp ends.
func (r *VURamp) Next(u int, t time.Duration) (at time.Duration, ok bool) {
	if r.Active(t) > u {
		return t, true
	}
	for k, st := range r.stages {
		end := r.begin[k] + st.Duration
		if t >= end {
			continue
		}
		a, b := r.from(k), st.Target
		if b > u && b > a {
			// Rising past u: the first e with (b-a)·e/d ≥ u+1-a.
			need := int64(u + 1 - a)
			e := time.Duration((need*int64(st.Duration) + int64(b-a) - 1) / int64(b-a))
			return max(t, r.begin[k]+e), true
		}
	}
	return 0, false
}

// Plateau is a stretch of a ramp that holds a number of users: a stage
// whose target is the count it starts from (consecutive ones joined).
type Plateau struct {
	From, To time.Duration // since the ramp's start
	Users    int
}

// Plateaus are the ramp's stretches of a constant count, in order;
// stretches of 0 users are left out (nothing is sent).
func (r *VURamp) Plateaus() []Plateau {
	var out []Plateau
	for k, st := range r.stages {
		if r.from(k) != st.Target || st.Target == 0 {
			continue
		}
		from, to := r.begin[k], r.begin[k]+st.Duration
		if n := len(out); n > 0 && out[n-1].To == from && out[n-1].Users == st.Target {
			out[n-1].To = to
			continue
		}
		out = append(out, Plateau{From: from, To: to, Users: st.Target})
	}
	return out
}
