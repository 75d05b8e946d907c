package study

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// Search bounds: at most maxProbes runs; stop when the bracket around the
// limit is narrower than searchPrecision of it; a probe keeps up when it
// reaches keepUp of its rate.
const (
	// MaxProbes bounds the search's judged probes (the warm-up before them
	// and the confirming runs after are more).
	MaxProbes       = 24
	searchPrecision = 0.05
	// rechecks bounds how often a search judges a missed bound again.
	rechecks = 2
	// loRechecks bounds how often a search judges its answer again
	// before handing it to the confirmation: a rate met once near the
	// limit may have been a lucky run.
	loRechecks = 2
	keepUp     = result.KeepUp
	// A confirmation that fails steps the rate down by stepDown, at most
	// maxStepDowns times.
	stepDown     = 0.9
	maxStepDowns = 5
	// A percentile q is judged on at least tailRecords/(1-q) records (p99
	// on 2,000): a probe at a low rate runs longer, up to maxStretch times
	// its duration.
	tailRecords = 20
	maxStretch  = 10
)

// maxRateWorkload returns the index of the scenario's rate: max workload,
// or -1.
func maxRateWorkload(sc *plan.Scenario) int {
	for i, w := range sc.Workloads {
		if w.MaxRate != nil {
			return i
		}
	}
	return -1
}

// probeRun runs one probe of a rate search: the scenario with its rate:
// max workload at r records/s (0: full speed) sending for d, and returns
// the run as result.json holds it (a distributed run's: every worker's
// share, merged). false: the run cannot be judged whatever it measured (a
// worker's share is missing), which ends the search with its error.
type probeRun func(r float64, d time.Duration) (result.Repeat, bool)

// localProbes runs each probe in this process: workload wi of sc at the
// probe's rate, judged on percentile q.
func localProbes(ctx context.Context, run runner.RunFunc, sc runner.Scenario, wi int, q float64, index int) probeRun {
	return func(r float64, d time.Duration) (result.Repeat, bool) {
		return runRepeat(ctx, run, withRate(sc, wi, r, d, q), index), true
	}
}

// runMaxRate searches for the highest rate of workload wi that keeps its
// SLO: it warms the cluster at full speed, doubles the rate from the
// start while rates meet the SLO, bisects between the last good and the
// first bad rate, then confirms the rate found with independent runs,
// stepping down while a confirmation fails, so the answer is always a
// confirmed rate. Each search rate is judged by the confirmation's own
// rule, so the rate found rarely needs a step down. The search asks no
// rate below the floor (nor above a ceiling) and ends at its time bound.
// The median confirming run at the answer is the repeat's result. Every
// run is recorded. probe runs each run (spec is the workload's producer,
// whose duration and warm-up set a probe's); started, if set, is told as
// each run starts.
func runMaxRate(ctx context.Context, probe probeRun, spec produce.ProducerSpec, ps *plan.Scenario, wi int, index int, progress func(string), started func(observe.ProbeInfo)) result.Repeat {
	mr := ps.Workloads[wi].MaxRate
	name := ps.Workloads[wi].Name
	var last result.Repeat
	failed := false
	c := &course{
		mr: mr, workload: name, progress: progress, started: started, now: time.Now,
		base: spec.Duration,
		duration: func(r float64) time.Duration {
			return probeDuration(spec.Duration, spec.WarmupDuration, r, mr.Percentile)
		},
		run: func(r float64, d time.Duration) (result.Probe, result.Repeat, bool) {
			if ctx.Err() != nil {
				return result.Probe{}, result.Repeat{}, false
			}
			var judged bool
			last, judged = probe(r, d)
			p, ok := probeOf(last, name, r, mr)
			p.Workers = sharesOf(last, name)
			if !ok || !judged {
				failed = ctx.Err() == nil
				return p, last, false
			}
			return p, last, true
		},
	}
	rate, reps := c.search()
	found := c.found
	switch {
	case failed:
		return failedSearch(last, ps, wi, found)
	case ctx.Err() != nil:
		return endSearch(ps, wi, index, found, result.StatusInterrupted, "interrupted")
	case rate > 0:
		return withSearch(medianRepeat(reps, name, mr), ps, wi, found)
	}
	msg := c.noAnswer()
	if len(found.Confirmations) == 0 || c.timeUp {
		return endSearch(ps, wi, index, found, result.StatusFailed, msg)
	}
	rep := last
	if rep.Status == result.StatusOK {
		rep.Status, rep.Error = result.StatusFailed, msg
	}
	return withSearch(rep, ps, wi, found)
}

// withSearch is rep with the search found recorded on workload wi of ps:
// on its workload of that name, or on one added when rep has none (a run
// that measured nothing).
func withSearch(rep result.Repeat, ps *plan.Scenario, wi int, found *result.MaxRate) result.Repeat {
	if k := workloadNamed(rep, ps.Workloads[wi].Name); k >= 0 {
		rep.Workloads[k].MaxRate = found
		return rep
	}
	rep.Workloads = append(rep.Workloads, result.Workload{Name: ps.Workloads[wi].Name, Type: ps.Workloads[wi].Type, MaxRate: found})
	return rep
}

// sharesOf are the workers whose shares of workload name rep merged
// (none: one process's run).
func sharesOf(rep result.Repeat, name string) []int {
	k := workloadNamed(rep, name)
	if k < 0 {
		return nil
	}
	var out []int
	for _, s := range rep.Workloads[k].Workers {
		out = append(out, s.Worker)
	}
	return out
}

// workloadNamed is the index of rep's workload of that name, or -1: a
// merged repeat lists the workloads in the order the workers' slices
// name them, not the plan's.
func workloadNamed(rep result.Repeat, name string) int {
	for k, w := range rep.Workloads {
		if w.Name == name {
			return k
		}
	}
	return -1
}

// course is one rate search from its warm-up to its answer, its runs
// abstracted (run, duration and now), so that a simulation can drive it.
type course struct {
	mr       *plan.MaxRate
	workload string
	// run sends at r records/s (0: full speed) for d; false: it measured
	// nothing (or the search was interrupted), which ends the search.
	run func(r float64, d time.Duration) (result.Probe, result.Repeat, bool)
	// duration is how long a probe at r sends; base the shortest.
	duration func(r float64) time.Duration
	base     time.Duration
	now      func() time.Time
	progress func(string)
	started  func(observe.ProbeInfo)

	found    *result.MaxRate
	deadline time.Time
	step     int  // the current step: a search rate or a confirming round
	rates    int  // search rates judged
	confirm  bool // in the confirmation
	timeUp   bool // a run could not end before the deadline
	verdicts map[float64]bool
}

// search runs the course and returns the confirmed rate (0: none) and the
// runs at it. c.found holds every run and what stopped the search.
func (c *course) search() (float64, []result.Repeat) {
	mr := c.mr
	maxTime := mr.MaxTime
	if maxTime <= 0 {
		maxTime = plan.DefaultMaxTime
	}
	c.deadline = c.now().Add(maxTime)
	c.verdicts = map[float64]bool{}
	perRate := max(mr.Probes, 1)
	need := plan.ConfirmNeeded(perRate)
	c.found = &result.MaxRate{Percentile: percentileName(mr.Percentile), LimitMs: ms(mr.Limit), On: "publish",
		Floor: c.floor(), Ceiling: mr.Ceiling, MaxTimeSeconds: maxTime.Seconds(), PerRate: perRate, PerRateNeeded: need}
	found := c.found
	if mr.EndToEnd {
		found.On = "end-to-end"
	}
	if mr.WarmCluster > 0 {
		c.progress(fmt.Sprintf("warming the cluster: %s at full speed (not judged)", mr.WarmCluster))
		probe, _, ok := c.probe(0, mr.WarmCluster, "warm-up", 1, 1, c.searchRunsLeft(0, 1))
		if !ok {
			return c.stop(0)
		}
		probe.Warmup = true
		found.FullSpeed = probe.Achieved
		found.Probes = append(found.Probes, probe)
		line := fmt.Sprintf("warm-up at full speed: reached %.0f records/s, %s %.1f ms (not judged)", probe.Achieved, found.Percentile, probe.LatencyMs)
		if probe.Failed > 0 {
			line += fmt.Sprintf("; %d of %d records sent failed (not acknowledged before its end)", probe.Failed, probe.Sent)
		}
		c.progress(line)
	}
	lo, limit, stopped := searchRate(mr.Start, c.floor(), mr.Ceiling, func(r float64) (result.Probe, bool) {
		c.step++
		c.rates++
		step := c.step
		verdict, runs, ok := judgeSearchRate(r, perRate, need, func(k int) (result.Probe, bool) {
			probe, _, ok := c.probe(r, 0, "search", k+1, perRate, c.searchRunsLeft(k+1, perRate))
			if ok {
				probe.Step = step
				found.Probes = append(found.Probes, probe)
			}
			return probe, ok
		})
		if !ok {
			return verdict, false
		}
		c.verdicts[r] = verdict.OK
		line := fmt.Sprintf("rate %.0f records/s: %s", r, metLine(runs, need, found.LimitMs))
		if verdict.OK {
			line += ": met"
		} else {
			line += ": missed"
		}
		c.progress(line)
		return verdict, true
	})
	found.Limit, found.Found, found.Stopped = limit, lo, stopped
	if c.timeUp {
		return c.stop(lo)
	}
	if lo == 0 {
		return c.stop(0)
	}
	c.confirm = true
	confirmNeed := plan.ConfirmNeeded(mr.Confirm)
	round := 0
	rate, confirmations, reps := confirmRate(lo, mr.Confirm, func(r float64, k int) (result.Probe, result.Repeat, bool) {
		if k == 0 {
			c.step++
			round++
		}
		more := (mr.Confirm - k - 1) + (maxStepDowns+1-round)*mr.Confirm
		probe, rep, ok := c.probe(r, 0, "confirm", k+1, mr.Confirm, more)
		if ok {
			probe.Confirm, probe.Step = true, c.step
			found.Probes = append(found.Probes, probe)
		}
		return probe, rep, ok
	}, func(cf result.Confirmation) {
		c.verdicts[cf.Rate] = cf.Confirmed
		runs := found.Probes[len(found.Probes)-cf.Runs:]
		c.progress(fmt.Sprintf("confirming %.0f records/s: %s: %s",
			cf.Rate, metLine(runs, confirmNeed, found.LimitMs), map[bool]string{true: "confirmed", false: "stepping down"}[cf.Confirmed]))
	})
	found.Confirmations, found.Rate = confirmations, rate
	found.LastMet, found.FirstMissed = bracket(c.verdicts)
	if c.timeUp {
		found.Stopped = "max_time"
	}
	return rate, reps
}

// stop ends the search early with the best rate met so far (not
// confirmed), its bracket and, when the time bound came, says so.
func (c *course) stop(lo float64) (float64, []result.Repeat) {
	c.found.Found = lo
	c.found.LastMet, c.found.FirstMissed = bracket(c.verdicts)
	if c.timeUp {
		c.found.Stopped = "max_time"
	}
	return 0, nil
}

// floor is the lowest rate the search asks: the plan's, start/10 by
// default, at least 1 record/s.
func (c *course) floor() float64 {
	f := c.mr.Floor
	if f <= 0 {
		f = c.mr.Start / 10
	}
	return max(f, 1)
}

// searchRunsLeft is how many runs may follow probe k of n at a search
// rate at most: the rest of this rate's, every rate the search may still
// judge, and the confirmation with all its steps down.
func (c *course) searchRunsLeft(k, n int) int {
	perRate := max(c.mr.Probes, 1)
	return (n - k) + (MaxProbes-c.rates)*perRate + (maxStepDowns+1)*c.mr.Confirm
}

// probe runs one probe of step ("warm-up", "search", "confirm") at r for
// d (0: the probe duration at r), run k of n at the rate; more is how
// many runs may follow at most. A run that could not end before the
// deadline is not started: the search is out of time.
func (c *course) probe(r float64, d time.Duration, step string, k, n, more int) (result.Probe, result.Repeat, bool) {
	if d == 0 {
		d = c.duration(r)
	}
	now := c.now()
	if now.Add(d).After(c.deadline) {
		c.timeUp = true
		return result.Probe{Rate: r}, result.Repeat{}, false
	}
	if byTime := int(c.deadline.Sub(now.Add(d)) / max(c.base, time.Second)); byTime < more {
		more = byTime
	}
	if c.started != nil {
		c.started(observe.ProbeInfo{Workload: c.workload, Step: step, Rate: r, Probe: k, Probes: n, Duration: d, MoreAtMost: more, Deadline: c.deadline})
	}
	return c.run(r, d)
}

// noAnswer says why the search has no confirmed rate.
func (c *course) noAnswer() string {
	f := c.found
	limit := fmt.Sprintf("%s ≤ %.1f ms", f.Percentile, f.LimitMs)
	switch {
	case c.timeUp:
		s := fmt.Sprintf("the search reached its time bound (max_time %s) after %d runs with no rate confirmed", time.Duration(f.MaxTimeSeconds*float64(time.Second)), len(f.Probes))
		if f.LastMet > 0 {
			s += fmt.Sprintf("; it had met %.0f records/s (%s at ≥ 95%% of the rate, %d of %d probes)", f.LastMet, limit, f.PerRateNeeded, f.PerRate)
		}
		return s + "; give slo.max_time more time, or a start nearer the answer"
	case f.Stopped == "floor":
		return fmt.Sprintf("no rate met the SLO (%s at ≥ 95%% of the rate asked): even the floor, %.0f records/s, missed it (%s); the search stops at slo.floor",
			limit, f.Floor, result.MissSummary(stepProbes(f, f.Floor), f.LimitMs))
	case len(f.Confirmations) == 0:
		return fmt.Sprintf("no probed rate met the SLO (%s at ≥ 95%% of the rate asked)", limit)
	}
	n := len(f.Confirmations)
	var runs []result.Probe
	for _, p := range f.Probes {
		if p.Confirm {
			runs = append(runs, p)
		}
	}
	return fmt.Sprintf("no rate was confirmed: the search found %.0f records/s, and %d step(s) down to %.0f records/s each met the SLO (%s at ≥ 95%% of the rate) in fewer than %d of %d runs (misses: %s)",
		f.Found, n-1, f.Confirmations[n-1].Rate, limit, f.Confirmations[0].Needed, c.mr.Confirm, result.MissSummary(runs, f.LimitMs))
}

// stepProbes are the search's probes at rate r.
func stepProbes(f *result.MaxRate, r float64) []result.Probe {
	var out []result.Probe
	for _, p := range f.Probes {
		if p.Rate == r && !p.Warmup && !p.Confirm {
			out = append(out, p)
		}
	}
	return out
}

// metLine says how many of a step's runs met the SLO and why the others
// missed: "2 of 3 met the SLO (3 needed; 1 over the latency limit)".
func metLine(runs []result.Probe, need int, limitMs float64) string {
	met := 0
	for _, p := range runs {
		if p.OK {
			met++
		}
	}
	s := fmt.Sprintf("%d of %d runs met the SLO (%d needed", met, len(runs), need)
	if why := result.MissSummary(runs, limitMs); why != "" {
		s += "; " + why
	}
	return s + ")"
}

// endSearch is the repeat of a search that ended without a run to stand
// for it: interrupted, or no rate met.
func endSearch(ps *plan.Scenario, wi, index int, found *result.MaxRate, status, msg string) result.Repeat {
	rep := result.Repeat{Index: index, StartedAt: time.Now(), EndedAt: time.Now(), Status: status, Error: msg}
	rep.Workloads = []result.Workload{{Name: ps.Workloads[wi].Name, Type: ps.Workloads[wi].Type, MaxRate: found}}
	return rep
}

// judgeSearchRate judges rate r by the confirmation's own rule on up to n
// probes: met when at least need of them meet the SLO (each within the
// latency limit and at ≥ 95% of r). It stops as soon as the verdict is
// known. The verdict's latency and rate reached are its runs' medians;
// generator-bound when most runs were. run returning false ends it (ok
// false).
func judgeSearchRate(r float64, n, need int, run func(k int) (result.Probe, bool)) (verdict result.Probe, runs []result.Probe, ok bool) {
	met := 0
	for k := 0; k < n && met < need && len(runs)-met <= n-need; k++ {
		p, ok := run(k)
		if !ok {
			return result.Probe{Rate: r}, runs, false
		}
		runs = append(runs, p)
		if p.OK {
			met++
		}
	}
	lat := make([]float64, len(runs))
	ach := make([]float64, len(runs))
	bound := 0
	for i, p := range runs {
		lat[i], ach[i] = p.LatencyMs, p.Achieved
		if p.GeneratorBound {
			bound++
		}
	}
	return result.Probe{Rate: r, LatencyMs: result.Describe(lat).Median, Achieved: result.Describe(ach).Median,
		GeneratorBound: 2*bound > len(runs), OK: met >= need}, runs, true
}

// confirmRate runs n independent probes at rate r; when fewer than
// plan.ConfirmNeeded(n) keep the SLO it steps the rate down and confirms
// again, at most maxStepDowns times. It returns the confirmed rate (0:
// none), every round, and the runs at the confirmed rate. A round stops
// early once it cannot succeed; a round that succeeds runs all n, so its
// count is of n. run (rate, run k of the round) returning false ends it
// (rate 0).
func confirmRate(r float64, n int, run func(r float64, k int) (result.Probe, result.Repeat, bool), done func(result.Confirmation)) (float64, []result.Confirmation, []result.Repeat) {
	need := plan.ConfirmNeeded(n)
	var rounds []result.Confirmation
	for step := 0; step <= maxStepDowns && r >= 1; step++ {
		c := result.Confirmation{Rate: r, Needed: need}
		var reps []result.Repeat
		for k := 0; k < n && c.Runs-c.Met <= n-need; k++ {
			p, rep, ok := run(r, k)
			if !ok {
				return 0, append(rounds, c), nil
			}
			c.Runs++
			if p.OK {
				c.Met++
			}
			reps = append(reps, rep)
		}
		c.Confirmed = c.Met >= need
		rounds = append(rounds, c)
		done(c)
		if c.Confirmed {
			return r, rounds, reps
		}
		r = math.Floor(r * stepDown)
	}
	return 0, rounds, nil
}

// searchRate finds the highest rate that meets the SLO: from start it
// doubles while rates meet it, then bisects between the last good and the
// first bad rate until they are within searchPrecision. Before a missed
// rate bounds the answer it is judged once more (at most rechecks times a
// search): met then, the earlier miss was noise, and the search goes on
// upwards from it. It asks no rate below floor: when the floor misses it
// stops (stopped "floor"); nor above ceiling (0: none): when the ceiling
// is met it stops (stopped "ceiling"). It returns the best good rate (0:
// none) and what limited it: "cluster", "generator" (the bounding probe
// was generator-bound) or "not reached". probe returning false ends the
// search.
//
// The search never looks above a rate that missed: on a freshly started
// local cluster the first probe broke the SLO at 1,000 records/s (JIT, new
// segments), the search bisected below it and answered 969 records/s where
// the same cluster then took 10,000/s; after a full-speed warm-up (whose
// writes the broker then flushes) it happened again, so the bound is
// judged twice.
func searchRate(start, floor, ceiling float64, probe func(r float64) (result.Probe, bool)) (best float64, limit, stopped string) {
	floor = max(floor, 1)
	lo, hi := 0.0, math.Inf(1)
	var met []float64 // the rates met, in the order met: each above the last
	hiBound := false
	hiMissed, left := 0, rechecks  // misses of the current bound; re-judgments left
	loMet, loLeft := 0, loRechecks // verdicts met at lo; its re-judgments left
	r := max(start, floor)
	if ceiling > 0 {
		r = min(r, ceiling)
	}
	bounded := func() string {
		if hiBound {
			return "generator"
		}
		return "cluster"
	}
	for p := 0; p < MaxProbes; p++ {
		pr, ok := probe(r)
		if !ok {
			if math.IsInf(hi, 1) {
				return lo, "not reached", ""
			}
			return lo, bounded(), ""
		}
		switch {
		case pr.OK && r >= hi: // the bound, judged again, kept it
			lo, hi, hiBound, hiMissed, loMet = r, math.Inf(1), false, 0, 1
			met = append(met, r)
		case pr.OK && r == lo: // the answer, judged again, kept it
			loMet++
		case pr.OK:
			lo, loMet = r, 1
			met = append(met, r)
		case r == hi:
			hiMissed++
		case r == lo && lo > 0: // the answer, judged again, missed: a lucky run
			met = met[:len(met)-1]
			hi, hiBound, hiMissed = r, pr.GeneratorBound, rechecks+1 // judged twice already
			lo, loMet = 0, 0
			if n := len(met); n > 0 {
				lo, loMet = met[n-1], 1
			}
		default:
			hi, hiBound, hiMissed = r, pr.GeneratorBound, 1
		}
		if ceiling > 0 && lo >= ceiling {
			return lo, "not reached", "ceiling"
		}
		if lo == 0 && hi <= floor {
			return 0, bounded(), "floor" // not even the floor met the SLO
		}
		if !math.IsInf(hi, 1) && (hi-lo)/hi < searchPrecision {
			if hiMissed == 1 && left > 0 {
				left--
				r = hi // judge the bound again before it bounds the answer
				continue
			}
			if loMet == 1 && loLeft > 0 {
				loLeft--
				r = lo // judge the answer again before it is handed on
				continue
			}
			break
		}
		switch {
		case math.IsInf(hi, 1):
			r *= 2
			if ceiling > 0 {
				r = min(r, ceiling)
			}
		case lo == 0:
			r = max(hi/2, floor)
		default:
			r = (lo + hi) / 2
		}
	}
	if math.IsInf(hi, 1) {
		return lo, "not reached", "" // every rate met the SLO
	}
	return lo, bounded(), ""
}

// bracket is the highest rate whose verdict kept the SLO and the lowest
// above it that missed (0 when none).
func bracket(verdicts map[float64]bool) (lastMet, firstMissed float64) {
	for r, ok := range verdicts {
		if ok && r > lastMet {
			lastMet = r
		}
	}
	for r, ok := range verdicts {
		if !ok && r > lastMet && (firstMissed == 0 || r < firstMissed) {
			firstMissed = r
		}
	}
	return lastMet, firstMissed
}

// medianRepeat is the run whose latency at the SLO's percentile (on
// workload name) is the median of reps (the lower middle of an even
// count).
func medianRepeat(reps []result.Repeat, name string, mr *plan.MaxRate) result.Repeat {
	type ranked struct {
		lat float64
		rep result.Repeat
	}
	rs := make([]ranked, 0, len(reps))
	for _, rep := range reps {
		if p, _ := probeOf(rep, name, 0, mr); rep.Status == result.StatusOK {
			rs = append(rs, ranked{p.LatencyMs, rep})
		}
	}
	if len(rs) == 0 {
		return reps[0] // unreachable: a confirmed round has runs that ended ok
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.lat, b.lat) })
	return rs[(len(rs)-1)/2].rep
}

// failedSearch is the repeat of a search whose last run could not be
// judged: that run, failed, with the search so far.
func failedSearch(rep result.Repeat, ps *plan.Scenario, wi int, found *result.MaxRate) result.Repeat {
	if rep.Status == result.StatusOK {
		rep.Status, rep.Error = result.StatusFailed, "the probe measured nothing"
	}
	return withSearch(rep, ps, wi, found)
}

// withRate is the scenario with workload wi at rate r (records/s; 0 full
// speed), sending for d (0: its own duration, stretched so that the
// steady state holds enough records for percentile q).
func withRate(sc runner.Scenario, wi int, r float64, d time.Duration, q float64) runner.Scenario {
	out := sc
	out.Workloads = append([]runner.Workload(nil), sc.Workloads...)
	p := out.Workloads[wi].Spec.(workload.Producing) // the plan checks it sends
	spec := p.Producer()
	spec.Rate = r
	if d > 0 {
		spec.Duration = d
	} else {
		spec.Duration = probeDuration(spec.Duration, spec.WarmupDuration, r, q)
	}
	out.Workloads[wi].Spec = p.WithProducer(spec)
	return out
}

// probeDuration stretches a probe of duration d (its first warm of it not
// judged) at r records/s so that its steady state holds the records
// percentile q needs, up to maxStretch times d.
func probeDuration(d, warm time.Duration, r, q float64) time.Duration {
	need := tailRecords / (1 - q)
	if r <= 0 || d <= 0 || r*(d-warm).Seconds() >= need {
		return d
	}
	// Whole seconds, rounded up, with a tenth more for a rate reached a
	// little short: rounding to the nearest left a p99 on 1,875 records.
	stretched := warm + time.Duration(math.Ceil(1.1*need/r))*time.Second
	return min(stretched, maxStretch*d)
}

// probeOf reads a probe's outcome on workload name; ok is false when the
// run measured nothing to judge.
func probeOf(rep result.Repeat, name string, r float64, mr *plan.MaxRate) (result.Probe, bool) {
	p := result.Probe{Rate: r}
	wi := workloadNamed(rep, name)
	if wi < 0 || rep.Workloads[wi].Producer == nil {
		return p, false
	}
	w := rep.Workloads[wi]
	cut := cutOff(rep, w)
	if rep.Status != result.StatusOK && !cut {
		return p, false
	}
	// The warm-up, if any, is left out: a probe is judged on steady state.
	prod := w.Producer
	if prod.SteadyState != nil {
		prod = prod.SteadyState
	}
	p.Achieved = prod.RecordsPerSec
	p.Seconds = w.Producer.DurationSeconds
	p.Sent, p.Failed = w.Producer.Records+w.Producer.Failed, w.Producer.Failed
	lat := &prod.Latency
	if mr.EndToEnd {
		if w.EndToEnd == nil {
			return p, false
		}
		lat = w.EndToEnd
	}
	h, err := lat.Decode()
	if err != nil || h.Count() == 0 {
		return p, false
	}
	p.LatencyMs = float64(h.Quantile(mr.Percentile)) / 1000
	p.Records = h.Count()
	p.GeneratorBound = w.Generator != nil && w.Generator.Bound
	p.OK = p.LatencyMs <= ms(mr.Limit) && p.Achieved >= keepUp*r && !cut
	if cut {
		p.Unacknowledged = w.Producer.Unresolved
	}
	return p, true
}

// cutOff reports whether a run failed only because records were still
// unacknowledged when its drain ended (a rate the cluster could not
// take, or the full-speed warm-up's queue): every failed record is
// unresolved (cancelled at the deadline, or failed with the client
// closing: CANCELLED, CLIENT_CLOSED), so the probe measured something and
// missed the SLO. Any record the cluster refused fails the search.
func cutOff(rep result.Repeat, w result.Workload) bool {
	pr := w.Producer
	return rep.Status == result.StatusFailed && pr.Records > 0 && pr.Failed > 0 && pr.Failed == pr.Unresolved
}

func percentileName(q float64) string {
	return "p" + strconv.FormatFloat(q*100, 'f', -1, 64)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
