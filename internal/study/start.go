package study

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/brokermetrics"
	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
)

// session is a study once its scenarios are built and its cluster is up:
// what every repeat shares.
type session struct {
	p         *plan.Plan
	scenarios []plan.Scenario
	built     []runner.Scenario
	b         *build
	opt       Options
	actor     faults.Actor
	// brokerPIDs lists a local cluster's broker processes (nil: remote).
	brokerPIDs func() map[int]int
	// dataDirs and proxyPID are a local cluster's data directories and
	// network proxies (nil: remote, or no proxies).
	dataDirs func() map[int]string
	proxyPID func() int
	// toward is a remote cluster's first bootstrap address: the client
	// host's interface toward it is measured ("": a local cluster).
	toward string
	// restartWith restarts a local cluster's broker with static settings
	// (nil: remote, where static settings are refused).
	restartWith func(ctx context.Context, id int, set map[string]*string) (map[string]*string, error)
	// metrics lists the Prometheus endpoints of the brokers (nil: none).
	metrics func() []brokermetrics.Target
	reach   *runner.Reachability
	// worker is this process's place in a distributed run (nil: the
	// study runs alone).
	worker *worker
	// unsliced are the built scenarios before a distributed run sliced
	// them (nil: not distributed): a rate search sets each probe's rate
	// on its workload whole, then slices it.
	unsliced []runner.Scenario
	// closers run when the study ends, last first: the schemas' record,
	// then the local cluster's stop.
	closers []func()
}

// close ends what start began; nil-safe.
func (s *session) close() {
	if s == nil {
		return
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// runID tells this run from another on the same cluster: a distributed
// run's own id, or 8 random hex digits.
func runID(opt Options) string {
	if opt.Distributed != nil {
		return opt.Distributed.Run.ID
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// start builds every scenario, starts or opens the plan's local cluster,
// resolves its schemas and checks once that the cluster answers. recorded
// says an error belongs in the document (the cluster or the schemas
// failed); any other error fails the study before it begins. The session
// returned is to be closed also on error.
func start(ctx context.Context, p *plan.Plan, scenarios []plan.Scenario, opt Options, run *result.PlanRun) (s *session, recorded bool, err error) {
	env := run.Environment
	// Build every scenario before starting anything: a bad property or a
	// missing payload file fails the plan at once, not an hour in.
	b := &build{observer: opt.Observer, seed: run.Seed, abort: opt.Abort, kinds: opt.kinds, runID: runID(opt), progress: opt.Progress}
	b.stall = stallSaying(opt)
	bootstrap := p.Cluster.Bootstrap
	built, err := buildAll(p, scenarios, bootstrapOrPlaceholder(bootstrap), b)
	if err != nil {
		return nil, false, err
	}
	for _, w := range b.warnings {
		fmt.Fprintf(opt.Progress, "kbench: warning: %s\n", w)
	}
	for _, n := range b.notes {
		fmt.Fprintf(opt.Progress, "kbench: %s\n", n)
	}
	s = &session{p: p, scenarios: scenarios, built: built, b: b, opt: opt,
		actor: faults.CommandActor{Commands: p.Cluster.FaultCommands, Shell: p.Cluster.FaultShell}}

	var registryURL string // the local cluster's schema registry
	if bootstrap == "" {
		lc, err := localCluster(ctx, p, opt)
		if err != nil {
			return s, true, err
		}
		s.closers = append(s.closers, lc.Stop)
		bootstrap = lc.Bootstrap
		registryURL = lc.RegistryURL
		s.actor = lc.Actor
		s.brokerPIDs, s.dataDirs, s.proxyPID = lc.BrokerPIDs, lc.DataDirs, lc.ProxyPID
		s.restartWith = lc.RestartWith
		if lc.BrokerMetrics != nil {
			s.metrics = localMetricsTargets(lc.BrokerMetrics)
		}
		env.Cluster = "local"
		env.KafkaVersion = lc.Version
		env.NetworkProxies = lc.Proxies
		for i := range scenarios {
			if built[i], err = scenarioOf(p, &scenarios[i], bootstrap, b); err != nil {
				return s, false, fmt.Errorf("scenario %s: %w", scenarios[i].Name, err)
			}
		}
	} else {
		env.Cluster = "external"
		s.toward, _, _ = strings.Cut(bootstrap, ",")
		if len(p.Cluster.Metrics) > 0 {
			if s.metrics, err = remoteMetricsTargets(p.Cluster.Metrics); err != nil {
				return s, false, err
			}
		}
	}
	if p.UsesSchemas() {
		if err := resolveSchemas(ctx, p, scenarios, registryURL, b, built, bootstrap, run); err != nil {
			return s, true, err
		}
		ids := b.schemas
		s.closers = append(s.closers, func() { ids.record(run) })
	}
	s.reach = &runner.Reachability{}
	for i := range built {
		built[i].Reach = s.reach
		planBounds(&built[i])
	}
	// One check that the cluster answers before anything waits on it: if
	// it does not, every repeat is skipped with the reason.
	if len(built) > 0 && s.reach.Check(ctx, built[0].Admin) == nil {
		if vs, n, err := kadmin.BrokerVersions(ctx, built[0].Admin); err == nil {
			env.BrokerVersions, env.Brokers = vs, n
		} else {
			fmt.Fprintf(opt.Progress, "kbench: could not ask the brokers for their versions: %v\n", err)
		}
	}
	return s, false, nil
}

// localCluster starts the plan's local cluster, or opens the one it names.
func localCluster(ctx context.Context, p *plan.Plan, opt Options) (*LocalCluster, error) {
	switch {
	case p.Cluster.Name != "" && opt.Named == nil:
		return nil, fmt.Errorf("cluster.name %q: this run cannot open a named local cluster", p.Cluster.Name)
	case p.Cluster.Name != "":
		lc, err := opt.Named(ctx, p.Cluster)
		if err == nil {
			err = p.CheckBrokers(lc.Brokers)
		}
		return lc, err
	default:
		return opt.StartLocal(ctx, p.Cluster.Local)
	}
}

// stallSaying says a workload's stall on the progress writer now and then,
// with the count and the last error; the live view shows each as it goes.
func stallSaying(opt Options) func(string, measure.Stall) {
	var mu sync.Mutex
	said := map[string]time.Time{} // per workload: a writer's stall hid its readers'
	return func(name string, st measure.Stall) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(said[name]) < stallEvery {
			return
		}
		said[name] = time.Now()
		fmt.Fprintln(opt.Progress, stallLine(name, st))
	}
}
