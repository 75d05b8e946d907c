package study

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// StatusRunning marks a plan's result.json written between repeats.
const StatusRunning = "running"

// PlanOptions are what a plan run needs beyond its plan.
type PlanOptions struct {
	// Progress receives one line per scenario and repeat (stderr).
	Progress io.Writer
	// Version is kbench's version, for the result.
	Version string
	// StartLocal starts the plan's local cluster. Called only when the
	// plan names no bootstrap servers and no cluster.
	StartLocal func(ctx context.Context, local plan.Local) (*LocalCluster, error)
	// Named opens the running local cluster the plan names (cluster.name).
	Named func(ctx context.Context, cl plan.Cluster) (*LocalCluster, error)
	// kinds are the workload kinds the plan may use; nil: kinds(). Tests
	// add their own.
	kinds map[string]kindBuilder
	// Observer, if set, follows the run live.
	Observer observe.Observer
	// OnRepeat, if set, is called after every repeat with the document so
	// far, so the caller can write partial results as they come.
	OnRepeat func(*result.Document)
	// Abort, if set, ends the producers' waits at once when done (a second
	// Ctrl-C after the first cancelled ctx).
	Abort context.Context
}

// LocalCluster is the local cluster started for a plan, or named by it.
type LocalCluster struct {
	Bootstrap, Version string
	// Brokers is how many it has (node ids 1 to Brokers).
	Brokers int
	Stop    func()
	// Actor acts on its broker processes for the plan's faults.
	Actor faults.Actor
	// Proxies: its connections run through kbench's network proxies.
	Proxies bool
	// RegistryURL is its schema registry's schema.registry.url ("": none).
	RegistryURL string
}

// stallLine says that a workload's producers wait for acknowledgements,
// with the last connection error; every live line names its workload.
func stallLine(name string, s measure.Stall) string {
	return "kbench: " + name + ": " + s.String()
}

// RunPlan runs every scenario of the plan and returns the document: also
// when it fails or ctx ends part way, with everything measured until then
// and the failure recorded. The error is the first failure (or ctx's).
func RunPlan(ctx context.Context, p *plan.Plan, scenarios []plan.Scenario, opt PlanOptions) (*result.Document, error) {
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	doc := result.New(result.KindPlan, opt.Version, time.Now(), nil)
	run := &result.PlanRun{Name: p.Name, Description: p.Description, Repeat: p.Repeat, Parameters: p.Parameters(), Seed: RunSeed(p)}
	doc.Plan = run
	env := &result.Environment{GoMaxProcs: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	run.Environment = env

	// Build every scenario before starting anything: a bad property or a
	// missing payload file fails the plan at once, not an hour in.
	b := &build{observer: opt.Observer, seed: run.Seed, abort: opt.Abort, kinds: opt.kinds}
	var stallMu sync.Mutex
	var stallSaid time.Time
	b.stall = func(name string, s measure.Stall) {
		// The live view shows each workload's stall as it goes; here a line
		// now and then, with the count and the last error.
		stallMu.Lock()
		defer stallMu.Unlock()
		if time.Since(stallSaid) < stallEvery {
			return
		}
		stallSaid = time.Now()
		fmt.Fprintln(opt.Progress, stallLine(name, s))
	}
	bootstrap := p.Cluster.Bootstrap
	built, err := buildAll(p, scenarios, bootstrapOrPlaceholder(bootstrap), b)
	if err != nil {
		return nil, err
	}
	for _, w := range b.warnings {
		fmt.Fprintf(opt.Progress, "kbench: warning: %s\n", w)
	}
	for _, n := range b.notes {
		fmt.Fprintf(opt.Progress, "kbench: %s\n", n)
	}

	var actor faults.Actor = faults.CommandActor{Commands: p.Cluster.FaultCommands, Shell: p.Cluster.FaultShell}
	var registryURL string // the local cluster's schema registry
	if bootstrap == "" {
		var lc *LocalCluster
		switch {
		case p.Cluster.Name != "" && opt.Named == nil:
			err = fmt.Errorf("cluster.name %q: this run cannot open a named local cluster", p.Cluster.Name)
		case p.Cluster.Name != "":
			lc, err = opt.Named(ctx, p.Cluster)
			if err == nil {
				err = p.CheckBrokers(lc.Brokers)
			}
		default:
			lc, err = opt.StartLocal(ctx, p.Cluster.Local)
		}
		if err != nil {
			doc.Finish(err)
			return doc, err
		}
		defer lc.Stop()
		bootstrap = lc.Bootstrap
		registryURL = lc.RegistryURL
		actor = lc.Actor
		env.Cluster = "local"
		env.KafkaVersion = lc.Version
		env.NetworkProxies = lc.Proxies
		for i := range scenarios {
			if built[i], err = scenarioOf(p, &scenarios[i], bootstrap, b); err != nil {
				return nil, fmt.Errorf("scenario %s: %w", scenarios[i].Name, err)
			}
		}
	} else {
		env.Cluster = "external"
	}
	if p.UsesSchemas() {
		if err := resolveSchemas(ctx, p, scenarios, registryURL, b, built, bootstrap, run); err != nil {
			doc.Finish(err)
			return doc, err
		}
		defer b.schemas.record(run)
	}
	reach := &runner.Reachability{}
	for i := range built {
		built[i].Reach = reach
		planBounds(&built[i])
	}
	// One check that the cluster answers before anything waits on it: if
	// it does not, every repeat is skipped below with the reason.
	if len(built) > 0 && reach.Check(ctx, built[0].Admin) == nil {
		if vs, n, err := kadmin.BrokerVersions(ctx, built[0].Admin); err == nil {
			env.BrokerVersions, env.Brokers = vs, n
		} else {
			fmt.Fprintf(opt.Progress, "kbench: could not ask the brokers for their versions: %v\n", err)
		}
	}

	prog := newProgress(opt.Progress, len(scenarios), p.Repeat)
	var firstErr error
	skipped := 0
	doc.Status = StatusRunning
	for i := range scenarios {
		run.Scenarios = append(run.Scenarios, result.Scenario{Index: i + 1, Name: scenarios[i].Name, Params: paramsOf(scenarios[i].Params)})
		rsc := &run.Scenarios[len(run.Scenarios)-1]
		for r := 1; r <= p.Repeat; r++ {
			if err := reach.Known(); err != nil {
				// Known unreachable: the rest of the plan is not run.
				if skipped == 0 {
					fmt.Fprintf(opt.Progress, "kbench: skipping the rest of the plan (%d repeat(s)): %v\n", (len(scenarios)-i)*p.Repeat-(r-1), err)
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
			prog.begin(i+1, r, scenarios[i].Name)
			info := repeatInfo(&scenarios[i], i+1, len(scenarios), r, p.Repeat)
			if opt.Observer != nil {
				opt.Observer.RepeatStarted(info)
			}
			var rep result.Repeat
			stopEvolution := b.schemas.evolve(ctx, &scenarios[i], built[i], r)
			sc := reseeded(built[i], r)
			sc.OnEnded = observe.EndedOf(opt.Observer)
			watched := sc
			watched.FailFast = true // no planned fault: a cluster that stops answering ends the repeat
			if wi := maxRateWorkload(&scenarios[i]); wi >= 0 {
				rep = runMaxRate(ctx, watched, &scenarios[i], wi, r, func(line string) {
					fmt.Fprintf(opt.Progress, "kbench: scenario %d, repeat %d: %s\n", i+1, r, line)
				})
			} else if ck := checksOf(p, &scenarios[i], actor, func(format string, args ...any) {
				fmt.Fprintf(opt.Progress, "kbench: scenario %d, repeat %d: %s\n", i+1, r, fmt.Sprintf(format, args...))
			}); ck.active() {
				rep = runChecked(ctx, sc, r, ck)
			} else {
				rep = runRepeat(ctx, watched, r)
			}
			stopEvolution()
			prog.end(rep)
			if opt.Observer != nil {
				opt.Observer.RepeatEnded(info, rep)
			}
			rsc.Repeats = append(rsc.Repeats, rep)
			if rep.Error != "" && firstErr == nil {
				firstErr = fmt.Errorf("scenario %s, repeat %d: %s", scenarios[i].Name, r, rep.Error)
			}
			if err := result.AggregateScenario(rsc); err != nil && firstErr == nil {
				firstErr = err
			}
			rsc.Thresholds = checkThresholds(&scenarios[i], rsc)
			// Written after every repeat: a crash or kill keeps what was measured.
			if opt.OnRepeat != nil {
				opt.OnRepeat(doc)
			}
			if ctx.Err() != nil {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	doc.Finish(firstErr) // "interrupted" after Ctrl-C
	return doc, firstErr
}

// Bounds of a plan run.
const (
	// stallEvery spaces the stall lines on stderr; the live view says it
	// per workload as it goes.
	stallEvery = 10 * time.Second
	// planFlushTimeout is how long a plan's producers wait for outstanding
	// records after Ctrl-C, or after the cluster was found unreachable
	// (workload.ProducerSpec.FlushTimeout), so the plan ends within 5 s.
	planFlushTimeout = time.Second
)

// planBounds sets what a plan bounds in its scenario's workloads.
func planBounds(sc *runner.Scenario) {
	for i, w := range sc.Workloads {
		if p, ok := w.Spec.(workload.Producing); ok && p.Producer().FlushTimeout == 0 {
			spec := p.Producer()
			spec.FlushTimeout = planFlushTimeout
			sc.Workloads[i].Spec = p.WithProducer(spec)
		}
	}
}

// CheckPlan builds every scenario of the plan as RunPlan would (client
// properties parsed, payload files read) without contacting a broker, and
// returns the client warnings: what --dry-run checks.
func CheckPlan(p *plan.Plan, scenarios []plan.Scenario) (warnings []string, err error) {
	// The plan's own warnings (a fault due after sending ends) first, as
	// the run prints them.
	b := &build{seed: RunSeed(p), warnings: append([]string(nil), p.Warnings()...)}
	bootstrap := bootstrapOrPlaceholder(p.Cluster.Bootstrap)
	for i := range scenarios {
		// Each is dropped once checked: a check of 10,000 scenarios holds one.
		if _, err := scenarioOf(p, &scenarios[i], bootstrap, b); err != nil {
			return b.warnings, fmt.Errorf("scenario %s: %w", scenarios[i].Name, err)
		}
	}
	return b.warnings, nil
}

func buildAll(p *plan.Plan, scenarios []plan.Scenario, bootstrap string, b *build) ([]runner.Scenario, error) {
	b.warnings = append(b.warnings, p.Warnings()...)
	built := make([]runner.Scenario, len(scenarios))
	for i := range scenarios {
		sc, err := scenarioOf(p, &scenarios[i], bootstrap, b)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", scenarios[i].Name, err)
		}
		built[i] = sc
	}
	return built, nil
}

// bootstrapOrPlaceholder lets scenarios be checked before a local cluster
// exists; they are built again with its real address.
func bootstrapOrPlaceholder(bs string) string {
	if bs == "" {
		return "127.0.0.1:9092"
	}
	return bs
}

func paramsOf(ps []plan.Param) []result.Param {
	out := make([]result.Param, len(ps))
	for i, p := range ps {
		out[i] = result.Param{Name: p.Name, Value: p.Value}
	}
	return out
}

// runRepeat runs one repeat of a scenario and converts what it measured.
func runRepeat(ctx context.Context, sc runner.Scenario, index int) result.Repeat {
	rep := result.Repeat{Index: index, StartedAt: time.Now()}
	out, err := runner.Run(ctx, sc)
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
	for _, w := range out.Workloads {
		rw, err := workloadResult(out, w)
		if err != nil && rep.Error == "" {
			rep.Status, rep.Error = result.StatusFailed, err.Error()
		}
		rep.Workloads = append(rep.Workloads, rw)
	}
	return rep
}
