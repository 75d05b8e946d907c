package study

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kbench/kbench/internal/brokercost"
	"github.com/kbench/kbench/internal/brokermetrics"
	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/grouplag"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/verify"
	"github.com/kbench/kbench/internal/workload"
)

// RepeatEnv is what a repeat needs beside its scenario: the plan and the
// plan scenario it was built from (its rate search, faults and
// verification), the actor for its faults, and where its lines go.
type RepeatEnv struct {
	Plan     *plan.Plan
	Scenario *plan.Scenario
	Actor    faults.Actor
	// Log says a line about the repeat (nil: none).
	Log func(line string)
	// FaultsElsewhere: another process runs the scenario's faults (a
	// distributed run's worker 0), so a cluster that stops answering may
	// be the plan's doing: no watchdog ends the repeat.
	FaultsElsewhere bool
	// Run runs each of the repeat's scenario runs (nil: runner.Run).
	Run runner.RunFunc
	// Probe, if set, is told as each run of a rate search starts.
	Probe func(observe.ProbeInfo)
	// Abort, done on a second Ctrl-C, cuts short what a repeat does after
	// its workloads (the heal of its faults): nil never.
	Abort context.Context
	// BrokerPIDs, if set, lists the local cluster's broker processes:
	// the repeat reads what they spend (result.Repeat.Brokers).
	BrokerPIDs func() map[int]int
	// DataDirs, if set, lists the local brokers' data directories: the
	// repeat reads their devices' load (result.Repeat.Disks).
	DataDirs func() map[int]string
	// ProxyPID, if set, is a network-faults cluster's proxy process: the
	// repeat reads its CPU (result.Repeat.Network).
	ProxyPID func() int
	// Toward, if set, is a remote cluster's address: the repeat reads
	// what the client host's interface toward it carried.
	Toward string
	// Metrics, if set, lists the brokers' Prometheus endpoints: the
	// repeat reads their own Kafka metrics (result.BrokerCost.Kafka).
	Metrics func() []brokermetrics.Target
	// WatchGroups are the system's consumer groups whose lag the repeat
	// samples (the plan's watch: {groups}).
	WatchGroups []string
	// ReadBack, if set, waits before verification reads the topics back
	// until they may be (a distributed run's barrier: every worker's
	// workloads ended, worker 0's faults healed).
	ReadBack func(ctx context.Context) error
	// ShareLedger, if set, shares a verified workload's ledger while the
	// repeat runs (a distributed worker's, for worker 0 to check if it
	// is lost).
	ShareLedger func(ctx context.Context, workload string, l *verify.Ledger) (stop func())
}

// brokerSampleEvery spaces the readings of the brokers' /proc: a second,
// the live view's interval.
const brokerSampleEvery = time.Second

// Repeat runs repeat index (1-based) of a scenario the study built and
// returns it as result.json holds it: a rate search when a workload asks
// for rate: max, a run under the plan's faults or verification when it has
// them, else one run. Its producers' records are reseeded per repeat. It
// is the step a plan's loop (Run), or a worker given a slice of the plan,
// runs.
func Repeat(ctx context.Context, sc runner.Scenario, index int, env RepeatEnv) result.Repeat {
	var cost *brokercost.Sampler
	if env.BrokerPIDs != nil {
		cost = brokercost.Start(env.BrokerPIDs, brokerSampleEvery)
	}
	var scraper *brokermetrics.Scraper
	if env.Metrics != nil {
		if targets := env.Metrics(); len(targets) > 0 {
			scraper = brokermetrics.Start(ctx, targets, brokerSampleEvery)
		}
	}
	var watch *grouplag.Watcher
	var watchErr error
	if len(env.WatchGroups) > 0 {
		watch, watchErr = grouplag.Start(ctx, sc.Admin, env.WatchGroups, brokerSampleEvery)
	}
	path := startPath(env)
	rep := repeatOnce(ctx, sc, index, env)
	if cost != nil {
		rep.Brokers = cost.Stop()
	}
	path.stop(&rep)
	if scraper != nil {
		rep.Brokers = withKafkaMetrics(rep.Brokers, scraper.Stop())
	}
	switch {
	case watch != nil:
		rep.Watched = watch.Stop(rep.Faults)
	case watchErr != nil:
		for _, g := range env.WatchGroups {
			rep.Watched = append(rep.Watched, result.WatchedGroup{Group: g, Error: watchErr.Error()})
		}
	}
	return rep
}

func repeatOnce(ctx context.Context, sc runner.Scenario, index int, env RepeatEnv) result.Repeat {
	log := env.Log
	if log == nil {
		log = func(string) {}
	}
	sc = reseeded(sc, index)
	watched := sc
	watched.FailFast = !env.FaultsElsewhere // no planned fault: a cluster that stops answering ends the repeat
	if wi := maxRateWorkload(env.Scenario); wi >= 0 {
		spec := watched.Workloads[wi].Spec.(workload.Producing).Producer() // the plan checks it sends
		probes := localProbes(ctx, env.Run.Or(), watched, wi, env.Scenario.Workloads[wi].MaxRate.Percentile, index)
		return runMaxRate(ctx, probes, spec, env.Scenario, wi, index, log, env.Probe)
	}
	if ck := checksOf(env.Plan, env.Scenario, env.Actor, func(format string, args ...any) { log(fmt.Sprintf(format, args...)) }); ck.active() {
		ck.abort, ck.readBack, ck.share = env.Abort, env.ReadBack, env.ShareLedger
		return runChecked(ctx, env.Run.Or(), sc, index, ck)
	}
	return runRepeat(ctx, env.Run.Or(), watched, index)
}

// repeatAll runs every repeat of every scenario into doc, written after
// each (Options.Folder), and returns the first failure. Once the cluster
// is known unreachable, the rest are skipped with the reason.
func (s *session) repeatAll(ctx context.Context, doc *result.Document) error {
	prog := newProgress(s.opt.Progress, len(s.scenarios), s.p.Repeat)
	run := doc.Plan
	var firstErr error
	skipped := 0
	for i := range s.scenarios {
		run.Scenarios = append(run.Scenarios, result.Scenario{Index: i + 1, Name: s.scenarios[i].Name, Params: paramsOf(s.scenarios[i].Params)})
		rsc := &run.Scenarios[len(run.Scenarios)-1]
		restore, err := s.setBrokerConfigs(ctx, i, rsc)
		if err != nil {
			// Not run: with the settings not in force, its figures would
			// be another scenario's.
			now := time.Now()
			for r := 1; r <= s.p.Repeat; r++ {
				rsc.Repeats = append(rsc.Repeats, result.Repeat{Index: r, StartedAt: now, EndedAt: now, Status: result.StatusFailed, Error: err.Error()})
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("scenario %s: %w", s.scenarios[i].Name, err)
			}
			continue
		}
		rsc.Ceilings = ceilings(s.b.kindsOr(), &s.scenarios[i], &s.built[i], rsc.BrokerConfigs)
		if err := s.repeatScenario(ctx, prog, doc, i, rsc, &firstErr, &skipped); err != nil {
			restore()
			return firstErr // ctx done
		}
		restore()
		if ctx.Err() != nil {
			return firstErr
		}
	}
	return firstErr
}

// repeatScenario runs scenario i's repeats into rsc; a non-nil error ends
// the plan (ctx done), firstErr keeps the first failure.
func (s *session) repeatScenario(ctx context.Context, prog *progress, doc *result.Document, i int, rsc *result.Scenario, firstErrp *error, skippedp *int) error {
	firstErr, skipped := *firstErrp, *skippedp
	defer func() { *firstErrp, *skippedp = firstErr, skipped }()
	{
		for r := 1; r <= s.p.Repeat; r++ {
			err := s.reach.Known()
			if err == nil && s.worker != nil {
				err = s.worker.over()
			}
			if err != nil {
				// Known unreachable, or the distributed run is over for
				// this worker: the rest of the plan is not run.
				if skipped == 0 {
					fmt.Fprintf(s.opt.Progress, "kbench: skipping the rest of the plan (%d repeat(s)): %v\n", (len(s.scenarios)-i)*s.p.Repeat-(r-1), err)
				}
				skipped++
				now := time.Now()
				rsc.Repeats = append(rsc.Repeats, result.Repeat{Index: r, StartedAt: now, EndedAt: now,
					Status: result.StatusSkipped, Error: "skipped: " + err.Error()})
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			rep := s.repeat(ctx, prog, i, r)
			rsc.Repeats = append(rsc.Repeats, rep)
			if rep.Error != "" && firstErr == nil {
				firstErr = fmt.Errorf("scenario %s, repeat %d: %s", s.scenarios[i].Name, r, rep.Error)
			}
			if err := result.AggregateScenario(rsc); err != nil && firstErr == nil {
				firstErr = err
			}
			rsc.Thresholds = checkThresholds(&s.scenarios[i], rsc)
			// Written after every repeat: a crash or kill keeps what was measured.
			if s.opt.Folder != nil {
				s.opt.Folder.between(doc)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return nil
}

// repeat runs repeat r of scenario i (0-based) with what a plan run adds
// around Repeat: the progress lines, the observer, the schemas' evolution.
func (s *session) repeat(ctx context.Context, prog *progress, i, r int) result.Repeat {
	psc := &s.scenarios[i]
	prog.begin(i+1, r, psc.Name)
	info := repeatInfo(psc, i+1, len(s.scenarios), r, s.p.Repeat)
	if s.opt.Observer != nil {
		s.opt.Observer.RepeatStarted(info)
	}
	stopEvolution := s.b.schemas.evolve(ctx, psc, s.built[i], r, func(line string) {
		fmt.Fprintf(s.opt.Progress, "kbench: warning: scenario %d, repeat %d: %s\n", i+1, r, line)
	})
	sc := s.built[i]
	sc.OnEnded = observe.EndedOf(s.opt.Observer)
	env := RepeatEnv{Plan: s.p, Scenario: psc, Actor: s.actor, Run: s.opt.Run, Abort: s.opt.Abort, Probe: observe.ProbeStartedOf(s.opt.Observer), BrokerPIDs: s.brokerPIDs, DataDirs: s.dataDirs, ProxyPID: s.proxyPID, Toward: s.toward, Metrics: s.metrics, WatchGroups: s.watchGroups(), Log: func(line string) {
		fmt.Fprintf(s.opt.Progress, "kbench: scenario %d, repeat %d: %s\n", i+1, r, line)
	}}
	var rep result.Repeat
	if s.worker == nil {
		rep = Repeat(ctx, sc, r, env)
	} else {
		// Every worker shares the brokers: their cost is not a slice's.
		env.BrokerPIDs, env.Metrics, env.WatchGroups = nil, nil, nil
		env.DataDirs, env.ProxyPID, env.Toward = nil, nil, ""
		if s.worker.d.Run.Index != 0 {
			env.Scenario, env.Actor = withoutFaults(psc), nil // worker 0 runs them
			env.FaultsElsewhere = len(psc.Faults) > 0
		}
		s.worker.verifies = slices.ContainsFunc(psc.Workloads, func(w plan.Workload) bool { return w.Verify })
		env.ReadBack, env.ShareLedger = s.worker.readBack, s.worker.shareLedger
		if wi := maxRateWorkload(psc); wi >= 0 {
			rep = s.worker.search(ctx, i+1, r, sc, s.unsliced[i].Workloads[wi], wi, env, func(ctx context.Context, sc runner.Scenario) result.Repeat {
				return runRepeat(ctx, env.Run.Or(), sc, r)
			})
		} else {
			rep = s.worker.repeat(ctx, i+1, r, sc, func(ctx context.Context, sc runner.Scenario) result.Repeat {
				return Repeat(ctx, sc, r, env)
			})
		}
	}
	if err := stopEvolution(); err != nil && rep.Status == result.StatusOK {
		rep.Status, rep.Error = result.StatusFailed, err.Error()
	}
	prog.end(rep)
	if s.opt.Observer != nil {
		s.opt.Observer.RepeatEnded(info, rep)
	}
	return rep
}

// runRepeat runs one repeat of a scenario and converts what it measured.
func runRepeat(ctx context.Context, run runner.RunFunc, sc runner.Scenario, index int) result.Repeat {
	rep := result.Repeat{Index: index, StartedAt: time.Now()}
	out, err := run(ctx, sc)
	rep.EndedAt = time.Now()
	rep.Status = result.StatusOK
	if err != nil {
		rep.Status, rep.Error = result.StatusFailed, err.Error()
		if ctx.Err() != nil {
			rep.Status = result.StatusInterrupted
		}
	}
	if out == nil {
		return rep
	}
	rep.SetupSeconds = out.Setup.Seconds()
	rep.Process = &result.Process{CPUSeconds: out.CPU.Seconds(), PeakGoroutines: out.Goroutines, PeakRSSBytes: out.PeakRSS}
	for i, w := range out.Workloads {
		rw, err := workloadResult(out, w, encodingOf(sc.Workloads[i].Spec))
		if err != nil && rep.Error == "" {
			rep.Status, rep.Error = result.StatusFailed, err.Error()
		}
		rep.Workloads = append(rep.Workloads, rw)
	}
	return rep
}

// withoutFaults is sc without its faults: what a worker other than worker
// 0 runs.
func withoutFaults(sc *plan.Scenario) *plan.Scenario {
	c := *sc
	c.Faults = nil
	return &c
}

// watchGroups are the plan's watched consumer groups (nil: none).
func (s *session) watchGroups() []string {
	if s.p.Watch == nil {
		return nil
	}
	return s.p.Watch.Groups
}
