package study

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
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

// Options are what a study needs beyond its plan.
type Options struct {
	// Progress receives one line per scenario and repeat (stderr).
	Progress io.Writer
	// Version is kbench's version, for the result.
	Version string
	// StartLocal starts the plan's local cluster. Called only when the
	// plan names no bootstrap servers and no cluster.
	StartLocal func(ctx context.Context, local plan.Local) (*LocalCluster, error)
	// Named opens the running local cluster the plan names (cluster.name).
	Named func(ctx context.Context, cl plan.Cluster) (*LocalCluster, error)
	// kinds are the workload kinds the plan may use; nil: Kinds(). Tests
	// add their own.
	kinds []Kind
	// Observer, if set, follows the run live.
	Observer observe.Observer
	// Folder, if set, is written after every repeat with the document so
	// far, so a crash or kill keeps what was measured (the caller writes it
	// once more with Folder.Final).
	Folder *Folder
	// Abort, if set, ends the producers' waits at once when done (a second
	// Ctrl-C after the first cancelled ctx).
	Abort context.Context
	// Distributed, if set, makes this study one worker of a run that
	// several kbench processes share (kbench run --workers).
	Distributed *Distributed
	// Run runs each scenario run (nil: runner.Run); tests of what the
	// command layer prints and writes hand it canned outcomes.
	Run runner.RunFunc
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
	// BrokerPIDs, if set, lists the process of each broker running now
	// (id → pid): each repeat reads their CPU, memory and disk from /proc.
	BrokerPIDs func() map[int]int
	// BrokerMetrics, if set, lists each broker's Prometheus endpoint (id
	// → URL): each repeat reads the brokers' own Kafka metrics there.
	BrokerMetrics func() map[int]string
	// DataDirs, if set, lists each broker's data directory (id → path):
	// each repeat reads how busy their disks were.
	DataDirs func() map[int]string
	// ProxyPID, if set, is its network proxies' process (0: none now):
	// each repeat reads the CPU the network between cost.
	ProxyPID func() int
	// RestartWith, if set, restarts broker id with static settings set
	// in its own files (nil: removed) and returns what they held: a
	// plan's static cluster.broker_configs, by a rolling restart.
	RestartWith func(ctx context.Context, id int, set map[string]*string) (map[string]*string, error)
}

// stallLine says that a workload's producers wait for acknowledgements,
// with the last connection error; every live line names its workload.
func stallLine(name string, s measure.Stall) string {
	return "kbench: " + name + ": " + s.String()
}

// Run runs every scenario of the plan and returns the document: also when
// it fails or ctx ends part way, with everything measured until then and
// the failure recorded. The error is the first failure (or ctx's).
func Run(ctx context.Context, p *plan.Plan, scenarios []plan.Scenario, opt Options) (*result.Document, error) {
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	doc := result.New(result.KindPlan, opt.Version, time.Now(), nil)
	run := &result.PlanRun{Name: p.Name, Description: p.Description, Repeat: p.Repeat, Parameters: p.Parameters(), Seed: RunSeed(p)}
	doc.Plan = run
	run.Environment = &result.Environment{GoMaxProcs: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if opt.Distributed != nil {
		if err := checkDistributed(p, scenarios, opt.Distributed); err != nil {
			return nil, err
		}
	}
	s, recorded, err := start(ctx, p, scenarios, opt, run)
	defer s.close()
	if err != nil {
		if !recorded {
			return nil, err
		}
		doc.Finish(err)
		return doc, err
	}
	if d := opt.Distributed; d != nil {
		if err := s.join(ctx, d); err != nil {
			return nil, err // nothing measured: a refused worker writes nothing
		}
		if d.Run.Index == 0 {
			if err := s.worker.publishHeader(ctx, doc, p); err != nil {
				s.worker.finish(ctx, nil, err)
				return nil, err
			}
		}
	}
	doc.Status = StatusRunning
	firstErr := s.repeatAll(ctx, doc)
	if ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if s.worker != nil {
		s.worker.finish(ctx, doc, firstErr)
	}
	if p.DeleteTopics && (s.worker == nil || opt.Distributed.Run.Index == 0) {
		s.deleteTopics(ctx)
	}
	doc.Finish(firstErr) // "interrupted" after Ctrl-C
	return doc, firstErr
}

// deleteTopics deletes every topic the plan's scenarios prepared
// (delete_topics: true), once the run has ended, also after Ctrl-C
// (bounded; a second Ctrl-C ends it): they are not left for the next
// study, whose faults would have to recover them too.
func (s *session) deleteTopics(ctx context.Context) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteTopicsTimeout)
	defer cancel()
	if s.opt.Abort != nil {
		defer context.AfterFunc(s.opt.Abort, cancel)()
	}
	byAdmin := map[int][]string{} // scenario index of the admin options → topics
	seen := map[string]bool{}
	for i, sc := range s.built {
		for _, tp := range sc.Topics {
			if !seen[tp.Name] {
				seen[tp.Name] = true
				byAdmin[i] = append(byAdmin[i], tp.Name)
			}
		}
	}
	deleted := 0
	var errs []string
	for i, names := range byAdmin {
		n, err := kadmin.DeleteTopics(dctx, s.built[i].Admin, names)
		deleted += n
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	fmt.Fprintf(s.opt.Progress, "kbench: deleted the plan's %d topic(s) (delete_topics)\n", deleted)
	if len(errs) > 0 {
		fmt.Fprintf(s.opt.Progress, "kbench: warning: not every topic of the plan was deleted: %s\n", strings.Join(errs, "; "))
	}
}

// Bounds of a plan run.
const (
	// stallEvery spaces the stall lines on stderr; the live view says it
	// per workload as it goes.
	stallEvery = 10 * time.Second
	// planFlushTimeout is how long a plan's producers wait for outstanding
	// records after Ctrl-C, or after the cluster was found unreachable
	// (produce.ProducerSpec.FlushTimeout), so the plan ends within 5 s.
	planFlushTimeout = time.Second
	// deleteTopicsTimeout bounds deleting the plan's topics at its end.
	deleteTopicsTimeout = 30 * time.Second
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

// CheckPlan builds every scenario of the plan as Run would (client
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
