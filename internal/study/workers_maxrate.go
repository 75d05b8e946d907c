package study

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// A distributed rate search: worker 0 decides each probe's total rate and
// announces it; every worker runs its share of the probe (its slice of
// the workload at that rate, as slices split any rate) between the
// probe's own barriers and publishes its slice; worker 0 merges them and
// judges the probe on the merged histogram, by the single-process
// search's rules (runMaxRate). The end of the search is announced too,
// with its outcome, so that every worker's exit code says it.

// probeName names probe k (1-based) of repeat r of scenario i: its
// barriers, its slices and worker 0's announcement of it.
func probeName(scenario, repeat, k int) string {
	return fmt.Sprintf("%s.p%d", sliceName(scenario, repeat), k)
}

// searchName names worker 0's whole search of repeat r of scenario i on
// the results topic: the repeat as merged and judged, for kbench collect
// (the probes' slices alone do not say which run answers).
func searchName(scenario, repeat int) string { return sliceName(scenario, repeat) + ".search" }

// probeCall is worker 0's announcement of a search's next probe (the total
// rate, 0 for full speed, and how long it sends), or of the search's end
// with its outcome.
type probeCall struct {
	Rate     float64       `json:"rate,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	End      bool          `json:"end,omitempty"`
	Status   string        `json:"status,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// search runs repeat r of scenario i (1-based), a rate search of workload
// wi, as this worker's part: worker 0 leads it, the others follow. sc is
// this worker's slice of the scenario, whole the scenario's workload wi
// before slicing (each probe's rate is set on it, then sliced); run runs
// this worker's part of each probe (runRepeat; a fake in tests).
func (wk *worker) search(ctx context.Context, i, r int, sc runner.Scenario, whole runner.Workload, wi int, env RepeatEnv, run roundRun) result.Repeat {
	wk.verifies = false // a search's probes are not verified, as in one process
	sc.FailFast = true  // a search runs no fault
	if wk.d.Run.Index == 0 {
		return wk.lead(ctx, i, r, sc, whole, wi, env, run)
	}
	return wk.follow(ctx, i, r, sc, whole, env, run)
}

// roundRun runs this worker's part of a round: its slice of the scenario.
type roundRun func(ctx context.Context, sc runner.Scenario) result.Repeat

// lead is worker 0's search: runMaxRate, each probe announced, then run
// by every worker as a round and judged on the merge; then the end.
func (wk *worker) lead(ctx context.Context, i, r int, sc runner.Scenario, whole runner.Workload, wi int, env RepeatEnv, run roundRun) result.Repeat {
	k := 0
	probe := func(rate float64, d time.Duration) (result.Repeat, bool) {
		k++
		name := probeName(i, r, k)
		psc, err := wk.probeScenario(sc, whole, rate, d, r)
		if err == nil {
			err = wk.announce(ctx, name, probeCall{Rate: rate, Duration: d})
		}
		if err != nil {
			return failedProbe(r, err), false
		}
		rep, complete := wk.round(ctx, i, r, name, nil, psc, run)
		// A probe without every worker's share ran at less than its rate:
		// it cannot be judged, and the search ends with its error.
		return rep, complete
	}
	spec := whole.Spec.(workload.Producing).Producer() // the plan checks it sends
	rep := runMaxRate(ctx, probe, spec, env.Scenario, wi, r, env.logOr(), env.Probe)
	end := probeCall{End: true, Status: rep.Status, Error: rep.Error}
	if err := wk.announce(ctx, probeName(i, r, k+1), end); err != nil && rep.Status == result.StatusOK {
		rep.Status, rep.Error = result.StatusFailed, err.Error()
	}
	pctx, cancel := afterInterrupt(ctx, 10*time.Second)
	defer cancel()
	if err := wk.publish(pctx, searchName(i, r), rep); err != nil {
		fmt.Fprintf(wk.progress, "kbench: scenario %d, repeat %d: the rate search is not on the run's results topic (kbench collect will lack it): %v\n", i, r, err)
	}
	return rep
}

// follow is the search on a worker other than 0: it runs its share of
// each probe worker 0 announces until worker 0 announces the end, whose
// outcome it returns (with its own share of the last probe). A wait for
// worker 0 that fails (worker 0 lost, left or the run over) ends it.
func (wk *worker) follow(ctx context.Context, i, r int, sc runner.Scenario, whole runner.Workload, env RepeatEnv, run roundRun) result.Repeat {
	log := env.logOr()
	last := result.Repeat{Index: r, StartedAt: time.Now(), Status: result.StatusOK}
	for k := 1; ; k++ {
		name := probeName(i, r, k)
		call, err := wk.announced(ctx, name)
		if err == nil && call.End {
			return endedSearch(last, call)
		}
		if err == nil {
			err = wk.over() // worker 0 stopped the last probe (Ctrl-C)
		}
		if err != nil && ctx.Err() != nil && last.Status == result.StatusOK {
			// Interrupted itself (Ctrl-C): its own outcome, as a repeat's.
			last.Status, last.Error = result.StatusInterrupted, "interrupted"
		}
		if err != nil {
			return failedAt(last, fmt.Errorf("the rate search: %w", err))
		}
		psc, err := wk.probeScenario(sc, whole, call.Rate, call.Duration, r)
		log(fmt.Sprintf("probe %d: worker 0 asks %s for %s; this worker's share: %s", k, rateWords(call.Rate), call.Duration, shareWords(psc, whole.Name)))
		last, _ = wk.round(ctx, i, r, name, nil, psc, func(ctx context.Context, sc runner.Scenario) result.Repeat {
			if err != nil {
				// Still a round: the others do not wait for it at the barriers.
				return failedProbe(r, err)
			}
			return run(ctx, sc)
		})
	}
}

// probeScenario is this worker's part of a probe at rate (records/s in
// all; 0: full speed) for d in repeat r: sc with its share of whole at
// that rate, sliced as every workload is. A worker with no client of the
// workload runs none of it.
func (wk *worker) probeScenario(sc runner.Scenario, whole runner.Workload, rate float64, d time.Duration, r int) (runner.Scenario, error) {
	k := slices.IndexFunc(sc.Workloads, func(w runner.Workload) bool { return w.Name == whole.Name })
	if k < 0 {
		return reseeded(sc, r), nil
	}
	p := whole.Spec.(workload.Producing) // the plan checks it sends
	spec := p.Producer()
	spec.Rate, spec.Duration = rate, d
	full := p.WithProducer(spec)
	if s, ok := full.(workload.Sliced); ok {
		part, _, err := s.Slice(wk.d.Run.Index, wk.d.Run.Workers)
		if err != nil {
			return sc, fmt.Errorf("workload %s: this worker's share of the probe: %w", whole.Name, err)
		}
		full = part
	}
	out := sc
	out.Workloads = slices.Clone(sc.Workloads)
	out.Workloads[k].Spec = full
	// Reseeded for the repeat, as one process's search is: every probe of
	// it on the same streams.
	return reseeded(out, r), nil
}

// announce tells the others call, named name (worker 0).
func (wk *worker) announce(ctx context.Context, name string, call probeCall) error {
	data, err := json.Marshal(call)
	if err == nil {
		err = wk.w.Announce(ctx, name, data)
	}
	if err != nil {
		return fmt.Errorf("announce the rate search's probe %s: %w", name, err)
	}
	return nil
}

// announced waits for worker 0's announcement name.
func (wk *worker) announced(ctx context.Context, name string) (probeCall, error) {
	var call probeCall
	data, err := wk.w.Announced(ctx, name)
	if err != nil {
		return call, err
	}
	if err := json.Unmarshal(data, &call); err != nil {
		return call, fmt.Errorf("worker 0's announcement %s: %w", name, err)
	}
	return call, nil
}

// failedProbe is a probe that could not run.
func failedProbe(r int, err error) result.Repeat {
	now := time.Now()
	return result.Repeat{Index: r, StartedAt: now, EndedAt: now, Status: result.StatusFailed, Error: err.Error()}
}

// failedAt is rep failed with err, unless it failed already.
func failedAt(rep result.Repeat, err error) result.Repeat {
	if rep.Status == result.StatusOK {
		rep.Status, rep.Error = result.StatusFailed, err.Error()
	}
	if rep.EndedAt.IsZero() {
		rep.EndedAt = time.Now()
	}
	return rep
}

// endedSearch is a following worker's repeat at the search's end: its
// share of the last probe, with worker 0's outcome of the search.
func endedSearch(last result.Repeat, call probeCall) result.Repeat {
	if last.EndedAt.IsZero() {
		last.EndedAt = time.Now()
	}
	if call.Status == result.StatusOK || call.Status == "" {
		last.Status, last.Error = result.StatusOK, ""
		return last
	}
	last.Status, last.Error = call.Status, "worker 0's rate search: "+strings.ReplaceAll(call.Error, "\n", "; ")
	return last
}

// rateWords is a probe's total rate in words.
func rateWords(rate float64) string {
	if rate <= 0 {
		return "full speed"
	}
	return fmt.Sprintf("%.0f records/s", rate)
}

// shareWords is this worker's share of workload name in sc, in words.
func shareWords(sc runner.Scenario, name string) string {
	k := slices.IndexFunc(sc.Workloads, func(w runner.Workload) bool { return w.Name == name })
	if k < 0 {
		return "none (no client of the workload is this worker's)"
	}
	p, ok := sc.Workloads[k].Spec.(workload.Producing)
	if !ok {
		return "the workload whole"
	}
	return rateWords(p.Producer().Rate)
}

// logOr is the repeat's line sayer, or one that says nothing.
func (env RepeatEnv) logOr() func(string) {
	if env.Log == nil {
		return func(string) {}
	}
	return env.Log
}
