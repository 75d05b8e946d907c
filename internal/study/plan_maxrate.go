package study

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
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
	keepUp   = 0.95
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

// runMaxRate searches for the highest rate of workload wi that keeps its
// SLO: it warms the cluster at full speed, doubles the rate from the
// start while probes keep the SLO, bisects between the last good and the
// first bad rate, then confirms the rate found with independent runs,
// stepping down while a confirmation fails, so the answer is always a
// confirmed rate. The median confirming run at the answer is the repeat's
// result. Every run is recorded.
func runMaxRate(ctx context.Context, runSc runner.RunFunc, sc runner.Scenario, ps *plan.Scenario, wi int, index int, progress func(string)) result.Repeat {
	mr := ps.Workloads[wi].MaxRate
	found := &result.MaxRate{Percentile: percentileName(mr.Percentile), LimitMs: ms(mr.Limit), On: "publish"}
	if mr.EndToEnd {
		found.On = "end-to-end"
	}
	var last result.Repeat
	failed := false
	verdicts := map[float64]bool{} // the last verdict at each judged rate
	// run is one probe at r records/s (0: full speed), d long (0: the
	// workload's duration, stretched for the percentile's records).
	run := func(r float64, d time.Duration) (result.Probe, result.Repeat, bool) {
		if ctx.Err() != nil {
			return result.Probe{}, result.Repeat{}, false
		}
		last = runRepeat(ctx, runSc, withRate(sc, wi, r, d, mr.Percentile), index)
		probe, ok := probeOf(last, wi, r, mr)
		if !ok {
			failed = ctx.Err() == nil
		}
		return probe, last, ok
	}
	if mr.WarmCluster > 0 {
		progress(fmt.Sprintf("warming the cluster: %s at full speed (not judged)", mr.WarmCluster))
		probe, _, ok := run(0, mr.WarmCluster)
		if !ok {
			return endSearch(ctx, last, ps, wi, index, found, failed)
		}
		probe.Warmup = true
		found.FullSpeed = probe.Achieved
		found.Probes = append(found.Probes, probe)
		progress(fmt.Sprintf("warm-up at full speed: reached %.0f records/s, %s %.1f ms (not judged)", probe.Achieved, found.Percentile, probe.LatencyMs))
	}
	lo, limit := searchRate(mr.Start, func(r float64) (result.Probe, bool) {
		// Each rate is judged on the median of mr.Probes runs: a single
		// short run's high percentile can hinge on one stall.
		var runs []result.Probe
		for k := 0; k < max(mr.Probes, 1); k++ {
			probe, _, ok := run(r, 0)
			if !ok {
				return probe, false
			}
			found.Probes = append(found.Probes, probe)
			runs = append(runs, probe)
		}
		probe := medianProbe(runs, r, mr)
		verdicts[r] = probe.OK
		progress(fmt.Sprintf("rate %.0f records/s: reached %.0f, %s %.1f ms (limit %.1f, median of %d): %s",
			r, probe.Achieved, found.Percentile, probe.LatencyMs, found.LimitMs, len(runs), keptWord(probe.OK)))
		return probe, true
	})
	found.Limit, found.Found = limit, lo
	if failed || ctx.Err() != nil || lo == 0 {
		found.LastMet, found.FirstMissed = bracket(verdicts)
		return endSearch(ctx, last, ps, wi, index, found, failed)
	}
	need := plan.ConfirmNeeded(mr.Confirm)
	rate, confirmations, reps := confirmRate(lo, mr.Confirm, func(r float64) (result.Probe, result.Repeat, bool) {
		probe, rep, ok := run(r, 0)
		if ok {
			probe.Confirm = true
			found.Probes = append(found.Probes, probe)
		}
		return probe, rep, ok
	}, func(c result.Confirmation) {
		verdicts[c.Rate] = c.Confirmed
		progress(fmt.Sprintf("confirming %.0f records/s: %d of %d runs kept the SLO (%d needed): %s",
			c.Rate, c.Met, c.Runs, need, map[bool]string{true: "confirmed", false: "stepping down"}[c.Confirmed]))
	})
	found.Confirmations, found.Rate = confirmations, rate
	found.LastMet, found.FirstMissed = bracket(verdicts)
	if failed || ctx.Err() != nil {
		return endSearch(ctx, last, ps, wi, index, found, failed)
	}
	if rate == 0 {
		rep := last
		if rep.Status == result.StatusOK {
			rep.Status, rep.Error = result.StatusFailed, fmt.Sprintf("no rate was confirmed: the search found %.0f records/s, and %d step(s) down to %.0f records/s each kept %s under %.1f ms in fewer than %d of %d runs",
				lo, len(confirmations)-1, confirmations[len(confirmations)-1].Rate, found.Percentile, found.LimitMs, need, mr.Confirm)
		}
		if wi < len(rep.Workloads) {
			rep.Workloads[wi].MaxRate = found
		}
		return rep
	}
	rep := medianRepeat(reps, wi, mr)
	if wi < len(rep.Workloads) {
		rep.Workloads[wi].MaxRate = found
	}
	return rep
}

func keptWord(ok bool) string { return map[bool]string{true: "kept", false: "broken"}[ok] }

// endSearch is the repeat of a search that ended early: interrupted, a
// run that measured nothing, or no probed rate that kept the SLO.
func endSearch(ctx context.Context, last result.Repeat, ps *plan.Scenario, wi, index int, found *result.MaxRate, failed bool) result.Repeat {
	if failed {
		return failedSearch(last, wi, found)
	}
	rep := result.Repeat{Index: index, StartedAt: time.Now(), EndedAt: time.Now(), Status: result.StatusFailed,
		Error: fmt.Sprintf("no probed rate kept %s under %.1f ms", found.Percentile, found.LimitMs)}
	if ctx.Err() != nil {
		rep.Status, rep.Error = result.StatusInterrupted, "interrupted"
	}
	rep.Workloads = []result.Workload{{Name: ps.Workloads[wi].Name, Type: ps.Workloads[wi].Type, MaxRate: found}}
	return rep
}

// confirmRate runs n independent probes at rate r; when fewer than
// plan.ConfirmNeeded(n) keep the SLO it steps the rate down and confirms
// again, at most maxStepDowns times. It returns the confirmed rate (0:
// none), every round, and the runs at the confirmed rate. A round stops
// early once it cannot succeed; a round that succeeds runs all n, so its
// count is of n. run returning false ends it (rate 0).
func confirmRate(r float64, n int, run func(float64) (result.Probe, result.Repeat, bool), done func(result.Confirmation)) (float64, []result.Confirmation, []result.Repeat) {
	need := plan.ConfirmNeeded(n)
	var rounds []result.Confirmation
	for step := 0; step <= maxStepDowns && r >= 1; step++ {
		c := result.Confirmation{Rate: r, Needed: need}
		var reps []result.Repeat
		for k := 0; k < n && c.Runs-c.Met <= n-need; k++ {
			p, rep, ok := run(r)
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

// medianRepeat is the run whose latency at the SLO's percentile is the
// median of reps (the lower middle of an even count).
func medianRepeat(reps []result.Repeat, wi int, mr *plan.MaxRate) result.Repeat {
	type ranked struct {
		lat float64
		rep result.Repeat
	}
	rs := make([]ranked, 0, len(reps))
	for _, rep := range reps {
		if p, _ := probeOf(rep, wi, 0, mr); rep.Status == result.StatusOK {
			rs = append(rs, ranked{p.LatencyMs, rep})
		}
	}
	if len(rs) == 0 {
		return reps[0] // unreachable: a confirmed round has runs that ended ok
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.lat, b.lat) })
	return rs[(len(rs)-1)/2].rep
}

// searchRate finds the highest rate whose probe keeps the SLO: from start
// it doubles while probes keep it, then bisects between the last good and
// the first bad rate until they are within searchPrecision. Before a
// missed rate bounds the answer it is judged once more (at most rechecks
// times a search): kept then, the earlier miss was noise, and the search
// goes on upwards from it. It returns the best good rate (0: none) and
// what limited it: "cluster", "generator" (the bounding probe was
// generator-bound) or "not reached". probe returning false ends the search.
//
// The search never looks above a rate that missed: on a freshly started
// local cluster the first probe broke the SLO at 1,000 records/s (JIT, new
// segments), the search bisected below it and answered 969 records/s where
// the same cluster then took 10,000/s; after a full-speed warm-up (whose
// writes the broker then flushes) it happened again, so the bound is
// judged twice.
func searchRate(start float64, probe func(r float64) (result.Probe, bool)) (best float64, limit string) {
	lo, hi := 0.0, math.Inf(1)
	hiBound := false
	hiMissed, left := 0, rechecks // misses of the current bound; re-judgments left
	r := start
	for p := 0; p < MaxProbes; p++ {
		pr, ok := probe(r)
		if !ok {
			return lo, "cluster"
		}
		switch {
		case pr.OK && r >= hi: // the bound, judged again, kept it
			lo, hi, hiBound, hiMissed = r, math.Inf(1), false, 0
		case pr.OK:
			lo = r
		case r == hi:
			hiMissed++
		default:
			hi, hiBound, hiMissed = r, pr.GeneratorBound, 1
		}
		if !math.IsInf(hi, 1) && (hi-lo)/hi < searchPrecision {
			if hiMissed == 1 && left > 0 {
				left--
				r = hi // judge the bound again before it bounds the answer
				continue
			}
			break
		}
		switch {
		case math.IsInf(hi, 1):
			r *= 2
		case lo == 0:
			r = hi / 2
		default:
			r = (lo + hi) / 2
		}
		if r < 1 {
			break // not even 1 record/s kept the SLO
		}
	}
	switch {
	case math.IsInf(hi, 1):
		return lo, "not reached" // every probe kept the SLO
	case hiBound:
		return lo, "generator"
	}
	return lo, "cluster"
}

func failedSearch(rep result.Repeat, wi int, found *result.MaxRate) result.Repeat {
	if rep.Status == result.StatusOK {
		rep.Status, rep.Error = result.StatusFailed, "the probe measured nothing"
	}
	if wi < len(rep.Workloads) {
		rep.Workloads[wi].MaxRate = found
	}
	return rep
}

// medianProbe judges a rate on its runs' median latency and rate reached;
// generator-bound when most runs were.
func medianProbe(runs []result.Probe, r float64, mr *plan.MaxRate) result.Probe {
	lat := make([]float64, len(runs))
	ach := make([]float64, len(runs))
	bound := 0
	for i, p := range runs {
		lat[i], ach[i] = p.LatencyMs, p.Achieved
		if p.GeneratorBound {
			bound++
		}
	}
	m := result.Probe{Rate: r, LatencyMs: result.Describe(lat).Median, Achieved: result.Describe(ach).Median, GeneratorBound: 2*bound > len(runs)}
	m.OK = m.LatencyMs <= ms(mr.Limit) && m.Achieved >= keepUp*r
	return m
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

// probeOf reads a probe's outcome; ok is false when the run measured
// nothing to judge.
func probeOf(rep result.Repeat, wi int, r float64, mr *plan.MaxRate) (result.Probe, bool) {
	p := result.Probe{Rate: r}
	if wi >= len(rep.Workloads) || rep.Workloads[wi].Producer == nil {
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
