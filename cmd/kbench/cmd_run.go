package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/gctune"
	"github.com/kbench/kbench/internal/live"
	"github.com/kbench/kbench/internal/metrics"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

type runOptions struct {
	// ombNames seeds an OMB workload's names (a distributed run's id).
	ombNames    string
	sets        []string
	out         string
	dryRun      bool
	metricsAddr string
	metricsHold time.Duration
	overwrite   bool
	ombDriver   string // run PLAN.yaml as an OMB workload with this driver file
	ombResult   string // with ombDriver: also write OMB's result here
	workers     workerFlags
}

func newRunCmd(st *state) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run PLAN.yaml [--omb-driver DRIVER.yaml] [--set PATH=VALUE ...] [--out DIR [--overwrite]] [--dry-run]",
		Short: "Run a study plan: every scenario of its matrix, repeated, into one results folder",
		Long: `Run a study plan (see docs/plans.md): the scenarios of its matrix, each
repeated, against the plan's cluster or a local one kbench starts. Results go
to one folder: result.json, summary.md, summary.csv, report.html and the plan
as run (plan.yaml, also kept inside result.json). With --omb-driver, PLAN.yaml
is an OpenMessaging Benchmark workload file, run with that OMB Kafka driver
file (see docs/omb.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.workers.given = cmd.Flags().Changed("workers")
			return runPlan(cmd.Context(), st, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.sets, "set", nil, "override a plan value, Helm style: repeat=2, 'workloads[0].records=50k', cluster.bootstrap=host:9092 (repeatable)")
	f.StringVar(&o.ombDriver, "omb-driver", "", "run PLAN.yaml as an OpenMessaging Benchmark workload with this OMB Kafka driver file; --set then also takes OMB fields (producerRate=5000, driver.replicationFactor=1; see docs/omb.md)")
	f.StringVar(&o.ombResult, "omb-result", "", "with --omb-driver: also write OMB's result JSON (as in the results folder's omb-result.json) to this file")
	f.StringVar(&o.out, "out", "", "results folder (default results/NAME-UTCTIMESTAMP)")
	f.BoolVar(&o.overwrite, "overwrite", false, "with --out: replace the results of an earlier run in that folder (refused otherwise)")
	f.BoolVar(&o.dryRun, "dry-run", false, "check the plan and list its scenarios with an estimate of the time; contacts no broker")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at HOST:PORT/metrics while the plan runs (see docs/metrics.md)")
	f.Var(units.Duration(&o.metricsHold, 0), "metrics-hold", "with --metrics-addr: keep serving this long after the run, for a last scrape")
	f.IntVar(&o.workers.workers, "workers", 0, "run the plan with this many kbench processes, each given its --worker-index and the same --run-id (see docs/distributed.md)")
	f.StringVar(&o.workers.index, "worker-index", "", "with --workers: this worker's index, 0 to N-1 (default $"+envWorkerIndex+", which a Kubernetes Indexed Job sets); worker 0 writes the results")
	f.StringVar(&o.workers.runID, "run-id", "", "with --workers: the id every worker of the run shares; it names the run's topics (default $"+envRunID+")")
	f.BoolVar(&o.workers.keepControl, "keep-control", false, "with --workers: keep the run's control and results topics afterwards, for kbench collect")
	return cmd
}

func runPlan(ctx context.Context, st *state, path string, o runOptions) error {
	// Flags first: --dry-run must not pass what the run would refuse.
	if o.metricsHold < 0 {
		return userr.Errorf("--metrics-hold %s: must not be negative; give how long to keep serving after the run, such as 30s", o.metricsHold)
	}
	if o.metricsHold > 0 && o.metricsAddr == "" {
		return userr.Errorf("--metrics-hold needs --metrics-addr")
	}
	if o.ombResult != "" && o.ombDriver == "" {
		return userr.Errorf("--omb-result %s needs --omb-driver: OMB's result is written for OpenMessaging Benchmark workloads (a kbench plan's results folder has result.json)", o.ombResult)
	}
	dist, err := o.workers.distributed(st.getenv, path, o.sets)
	if err != nil {
		return err
	}
	if dist != nil {
		// Every worker names an OMB workload's topics and groups alike.
		o.ombNames = dist.Run.ID
	}
	p, omb, err := loadPlan(ctx, path, o)
	if err != nil {
		return err
	}
	scenarios, err := p.Scenarios()
	if err != nil {
		return err
	}
	if o.dryRun {
		return dryRun(st, p, scenarios, omb, path, o)
	}
	if omb != nil {
		printNotes(st.stderr, omb, "kbench: note: ")
	}
	if dist != nil && dist.Run.Index != 0 {
		return runWorker(ctx, st, p, scenarios, dist, o)
	}
	folder, err := study.OpenFolder(p, study.FolderOptions{Dir: o.out, Overwrite: o.overwrite, OMBResult: o.ombResult, Log: st.stderr})
	if err != nil {
		return err
	}
	defer folder.Close() // deferred first, so it runs after the last write
	// A second Ctrl-C whose wind-down outlasts the grace exits before the
	// final write: the user is told what the folder holds.
	st.onForcedExit(func() { fmt.Fprintf(st.stderr, "kbench: %s\n", folder.Abandon()) })
	defer st.onForcedExit(nil)
	var observers observe.Observers
	if o.metricsAddr != "" {
		exp, stop, err := serveMetrics(ctx, st, p.Name, o)
		if err != nil {
			return err
		}
		defer stop()
		observers = append(observers, exp)
	}
	fmt.Fprintf(st.stderr, "kbench: %s: %d scenario(s) × %d repeat(s); results in %s\n", p.Name, len(scenarios), p.Repeat, folder.Dir)
	view := live.New(st.stderr, live.IsTerminal(st.stderr, st.getenv), len(scenarios), p.Repeat)
	defer view.Close() // idempotent: closed before the summary is printed
	observers = append(observers, view)
	doc, runErr := study.Run(ctx, p, scenarios, study.Options{
		Progress:    view,
		Observer:    observers,
		Version:     version,
		StartLocal:  planLocalCluster(st),
		Abort:       st.abort,
		Named:       planNamedCluster(st, true),
		Folder:      folder,
		Distributed: dist,
		Run:         st.runScenario,
	})
	view.Close() // before the final write's lines and the summary
	if err := folder.Final(doc); err != nil {
		return errors.Join(runErr, err)
	}
	if doc == nil {
		return runErr
	}
	if err := report.WriteSummaryMarkdown(st.stdout, doc); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(st.stderr, "kbench: results in %s\n", folder.Dir)
	if runErr == nil {
		runErr = crossedThresholds(st, doc)
	}
	return runErr
}

// dryRun checks the plan as the run would, without a broker, and lists
// its scenarios with an estimate of the time (--dry-run).
func dryRun(st *state, p *plan.Plan, scenarios []plan.Scenario, omb *plan.OMB, path string, o runOptions) error {
	if _, ours := gcPercent(st.getenv); ours {
		// A dry run measures nothing: Go's default collector keeps
		// checking a 10,000-scenario plan under 200 MB, where the
		// benchmark setting (main) let it reach 5 times its live heap.
		gctune.Fix(gctune.Low)
	}
	warnings, err := study.CheckPlan(p, scenarios)
	for _, w := range warnings {
		fmt.Fprintf(st.stderr, "kbench: warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	if p.Cluster.Name != "" && p.Cluster.Bootstrap == "" {
		// What the run checks first from the cluster's state file
		// alone: the name, and the brokers the faults target.
		c, err := namedCluster(st, p.Cluster)
		if err != nil {
			return err
		}
		if err := p.CheckBrokers(len(c.Brokers)); err != nil {
			return err
		}
		if err := checkTiered(p.Cluster, c); err != nil {
			return err
		}
	}
	if omb != nil {
		printOMB(st.stdout, omb, path, o.ombDriver)
	}
	printDryRun(st, p, scenarios)
	return nil
}

// serveMetrics serves the run's Prometheus metrics at --metrics-addr;
// stop keeps serving for --metrics-hold, then stops.
func serveMetrics(ctx context.Context, st *state, name string, o runOptions) (exp *metrics.Exporter, stop func(), err error) {
	exp = metrics.New(name, version)
	sctx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	addr, err := exp.Serve(sctx, o.metricsAddr)
	if err != nil {
		stopServing()
		return nil, nil, userr.Errorf("%v; give a free HOST:PORT such as 127.0.0.1:9464", err)
	}
	fmt.Fprintf(st.stderr, "kbench: Prometheus metrics at http://%s/metrics\n", addr)
	return exp, func() {
		if o.metricsHold > 0 {
			fmt.Fprintf(st.stderr, "kbench: serving the final metrics for %s more\n", o.metricsHold)
			select {
			case <-time.After(o.metricsHold):
			case <-ctx.Done():
			}
		}
		stopServing()
	}, nil
}

// thresholdsCrossed ends a run whose thresholds failed: exit 99, after
// everything was written.
type thresholdsCrossed struct{ failed, total int }

func (e thresholdsCrossed) Error() string {
	return fmt.Sprintf("%d of %d thresholds failed (see summary.md)", e.failed, e.total)
}

// crossedThresholds prints each failed threshold and returns the error
// that exits 99, or nil when every threshold held.
func crossedThresholds(st *state, doc *result.Document) error {
	total, failed := 0, 0
	for _, sc := range doc.Plan.Scenarios {
		for _, th := range sc.Thresholds {
			total++
			if th.Passed {
				continue
			}
			failed++
			measured := "not measured"
			if !th.Missing {
				measured = strconv.FormatFloat(th.Value, 'f', -1, 64)
			}
			fmt.Fprintf(st.stderr, "kbench: threshold failed: %s, %s: %s %s, measured %s\n", sc.Name, th.Workload, th.Metric, th.Condition, measured)
		}
	}
	if failed == 0 {
		return nil
	}
	return thresholdsCrossed{failed, total}
}

// measuringTime is how long the plan measures, as --dry-run estimates it:
// each scenario's estimate times the repeats, over the scenarios whose
// length is known; unknown counts the others (records without a rate, or
// a rate search).
func measuringTime(p *plan.Plan, scenarios []plan.Scenario) (total time.Duration, unknown int) {
	for _, sc := range scenarios {
		if est, ok := sc.Estimate(); ok {
			total += est * time.Duration(p.Repeat)
		} else {
			unknown++
		}
	}
	return total, unknown
}

func printDryRun(st *state, p *plan.Plan, scenarios []plan.Scenario) {
	for _, sc := range scenarios {
		est, ok := sc.Estimate()
		line := fmt.Sprintf("scenario %d: %s", sc.Index, sc.Name)
		if ok {
			line += fmt.Sprintf(": about %s per repeat", est.Round(time.Second))
		} else if mr, probe, ok := searchProbe(sc); ok {
			line += ": a rate search"
			if mr.WarmCluster > 0 {
				line += fmt.Sprintf(": a %s warm-up at full speed,", mr.WarmCluster)
			}
			line += fmt.Sprintf(" 1 to %d rates of %d probe(s) of %s each (longer at low rates), then %d confirming runs (more when a confirmation steps the rate down)",
				study.MaxProbes, max(mr.Probes, 1), probe, mr.Confirm)
			line += fmt.Sprintf("; rates from %s records/s, none below the floor %s", units.Figure(mr.Start, 0), units.Figure(mr.Floor, 0))
			if mr.Ceiling > 0 {
				line += fmt.Sprintf(" nor above the ceiling %s", units.Figure(mr.Ceiling, 0))
			}
			line += fmt.Sprintf("; ends within %s (max_time)", mr.MaxTime)
		} else {
			line += ": time unknown (no rate or duration)"
		}
		if len(sc.BrokerConfigs) > 0 {
			var set []string
			for _, name := range slices.Sorted(maps.Keys(sc.BrokerConfigs)) {
				set = append(set, name+"="+sc.BrokerConfigs[name])
			}
			line += "; broker settings, cluster-wide, put back after: " + strings.Join(set, ", ")
		}
		fmt.Fprintln(st.stdout, line)
	}
	where := "a local cluster kbench starts"
	if p.Cluster.Bootstrap != "" {
		where = p.Cluster.Bootstrap
	}
	if p.Cluster.Name != "" {
		where = fmt.Sprintf("the local cluster %q (kbench cluster up --name %s)", p.Cluster.Name, p.Cluster.Name)
	}
	total, unknown := measuringTime(p, scenarios)
	summary := fmt.Sprintf("%d scenario(s) × %d repeat(s) against %s", len(scenarios), p.Repeat, where)
	if total > 0 {
		summary += fmt.Sprintf("; at least %s of measuring", total.Round(time.Second))
	}
	if unknown > 0 {
		summary += fmt.Sprintf(" (%d scenario(s) of unknown length: as fast as the cluster allows, or a rate search)", unknown)
	}
	fmt.Fprintln(st.stdout, summary)
	var timeline []faults.Fault
	if len(scenarios) > 0 {
		timeline = scenarios[0].Faults // each scenario's, with its parameters
	}
	for i, f := range timeline {
		when := "at " + f.At.String()
		if f.After != "" {
			when = fmt.Sprintf("%s after %s", f.At, f.After)
		}
		line := fmt.Sprintf("fault %d: %s %s, %s", i+1, f.Action, f.TargetString(), when)
		if f.Name != "" {
			line = fmt.Sprintf("fault %d (%s): %s %s, %s", i+1, f.Name, f.Action, f.TargetString(), when)
		}
		if len(f.Params) > 0 {
			line += ", " + f.Params.String()
		}
		fmt.Fprintln(st.stdout, line)
	}
	if len(scenarios) > 0 {
		for _, w := range scenarios[0].Workloads {
			if line := w.Matching(); line != "" {
				fmt.Fprintln(st.stdout, line)
			}
		}
	}
	var verified []string
	if len(scenarios) > 0 {
		for _, w := range scenarios[0].Workloads {
			if !w.Verify {
				continue
			}
			_, txID := w.Properties["transactional.id"]
			if _, ok := p.Cluster.Properties["transactional.id"]; ok || txID || w.Transaction != nil {
				verified = append(verified, w.Name+" (as a read_committed consumer: every committed record once, none of an aborted transaction)")
				continue
			}
			verified = append(verified, w.Name)
		}
	}
	if len(verified) > 0 {
		fmt.Fprintf(st.stdout, "verified after each repeat (read back from the start): %s\n", strings.Join(verified, ", "))
	}
	printTiered(st, scenarios)
	if len(scenarios) > 0 {
		if timed := study.CommitToVisible(p, scenarios[0]); len(timed) > 0 {
			fmt.Fprintf(st.stdout, "commit-to-visible delay timed (each committed record's first read minus its transaction's commit acknowledgement): %s\n", strings.Join(timed, ", "))
		}
	}
}

// printTiered says what each wait for the remote tier checks, once per
// different wait (a matrix may wait in one scenario and not another).
func printTiered(st *state, scenarios []plan.Scenario) {
	said := map[string]bool{}
	for _, sc := range scenarios {
		for _, w := range sc.Workloads {
			line := w.TieredLine()
			if line == "" || said[line] {
				continue
			}
			said[line] = true
			where := ""
			if len(scenarios) > 1 {
				where = fmt.Sprintf(" (scenario %d)", sc.Index)
			}
			fmt.Fprintf(st.stdout, "tiered storage%s: %s\n", where, line)
		}
	}
}

// searchProbe is the search and probe duration of a scenario's rate: max
// workload.
func searchProbe(sc plan.Scenario) (*plan.MaxRate, time.Duration, bool) {
	for _, w := range sc.Workloads {
		if w.MaxRate != nil {
			return w.MaxRate, w.Duration, true
		}
	}
	return nil, 0, false
}

// planLocalCluster starts the local cluster a plan asks for (cluster.local)
// and stops it when the plan ends.
func planLocalCluster(st *state) func(context.Context, plan.Local) (*study.LocalCluster, error) {
	return func(ctx context.Context, l plan.Local) (*study.LocalCluster, error) {
		brokers := max(l.Brokers, 1)
		fmt.Fprintf(st.stderr, "kbench: starting a local Apache Kafka %s with %d broker(s) for this plan\n", orDefault(l.Version, cluster.DefaultVersion), brokers)
		opts := append(clusterOpts(st),
			cluster.WithBrokers(brokers),
			cluster.WithName(fmt.Sprintf("plan-%d", os.Getpid())),
			cluster.WithStopOnExit(true),
		)
		if l.Version != "" {
			opts = append(opts, cluster.WithVersion(l.Version))
		}
		if l.Heap != "" {
			opts = append(opts, cluster.WithHeap(l.Heap))
		}
		if len(l.BrokerConfigs) > 0 {
			opts = append(opts, cluster.WithBrokerProps(l.BrokerConfigs))
		}
		if l.Timeout > 0 {
			opts = append(opts, cluster.WithStartTimeout(l.Timeout))
		}
		if l.NetworkFaults {
			fmt.Fprintln(st.stderr, "kbench: the plan has network faults: every connection of the cluster runs through kbench's network proxies")
			opts = append(opts, cluster.WithNetworkFaults(true))
		}
		if l.SchemaRegistry {
			fmt.Fprintln(st.stderr, "kbench: the plan's messages have a schema format and it names no registry: a schema registry (Apicurio) starts with the cluster")
			opts = append(opts, cluster.WithSchemaRegistry(true))
		}
		if l.TieredStorage {
			fmt.Fprintln(st.stderr, "kbench: the brokers start with tiered storage (remote log storage through LocalTieredStorage, in a folder of the cluster's)")
			opts = append(opts, cluster.WithTieredStorage(true))
		}
		c, err := cluster.Start(ctx, opts...)
		if err != nil {
			return nil, localClusterErr("start for the plan", planLocalFields, err)
		}
		stop := func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := c.Stop(sctx, false); err != nil {
				fmt.Fprintf(st.stderr, "kbench: stop local cluster: %v\n", err)
			}
		}
		if st.keepPlanCluster != nil {
			st.keepPlanCluster(c)
			stop = func() {}
		}
		return &study.LocalCluster{Bootstrap: c.Bootstrap(), Version: c.Version, Brokers: len(c.Brokers), Stop: stop, Actor: c.FaultActor(), Proxies: c.Network != nil, RegistryURL: c.RegistryURL(), BrokerPIDs: c.PIDs, BrokerMetrics: c.MetricsURLs, DataDirs: c.DataDirs, ProxyPID: c.ProxyPID, RestartWith: c.RestartWith}, nil
	}
}

// namedCluster loads the state of the local cluster a plan names
// (cluster.name): the run and --dry-run alike refuse a name that is not
// there.
func namedCluster(st *state, pc plan.Cluster) (*cluster.Cluster, error) {
	c, err := cluster.Load(clusterStateDir(st), pc.Name)
	if errors.Is(err, cluster.ErrNotFound) {
		return nil, userr.Errorf("%s: no local cluster named %q (known: %s); start it first: kbench cluster up --name %s --brokers 3",
			pc.NameAt, pc.Name, knownClusters(st), pc.Name)
	}
	if err != nil {
		return nil, clusterErr("for the plan", err)
	}
	return c, nil
}

// planNamedCluster opens the running local cluster a plan names
// (cluster.name), as `kbench cluster up` left it; the plan leaves it
// running.
//
// lock takes the cluster's run lock for the run (lockForRun): a distributed
// run's workers other than 0, which run no faults, share the cluster
// worker 0 holds.
func planNamedCluster(st *state, lock bool) func(context.Context, plan.Cluster) (*study.LocalCluster, error) {
	return func(ctx context.Context, pc plan.Cluster) (*study.LocalCluster, error) {
		c, err := namedCluster(st, pc)
		if err != nil {
			return nil, err
		}
		for _, b := range c.Brokers {
			if alive, paused := c.Proc(b.ID); !alive || paused {
				state := "not running"
				if paused {
					state = "paused"
				}
				return nil, userr.Errorf("%s: broker %d of cluster %q is %s; bring it back with 'kbench cluster up --name %s' (see 'kbench cluster status --name %s')",
					pc.NameAt, b.ID, c.Name, state, c.Name, c.Name)
			}
		}
		if c.Security != "" && pc.Properties["security.protocol"] == "" {
			return nil, userr.Errorf("%s: cluster %q is secured (%s): put its client properties (the file 'kbench cluster status --name %s' shows) in cluster.properties", pc.NameAt, c.Name, c.Security, c.Name)
		}
		fmt.Fprintf(st.stderr, "kbench: running on the local cluster %q (%d broker(s)): %s\n", c.Name, len(c.Brokers), c.Bootstrap())
		if err := checkTiered(pc, c); err != nil {
			return nil, err
		}
		if pc.Local.NetworkFaults && c.Network == nil {
			return nil, userr.Errorf("%s: the plan has network faults, and cluster %q has no network proxies; start one with them: kbench cluster up --name NAME --brokers 3 --network-faults (or leave cluster.name out: the plan then starts its own)", pc.NameAt, c.Name)
		}
		unlock := func() {}
		if lock {
			if unlock, err = lockForRun(ctx, c, pc.NameAt); err != nil {
				return nil, err
			}
		}
		return &study.LocalCluster{Bootstrap: c.Bootstrap(), Version: c.Version, Brokers: len(c.Brokers), Stop: unlock, Actor: c.FaultActor(), Proxies: c.Network != nil, RegistryURL: c.RegistryURL(), BrokerPIDs: c.PIDs, BrokerMetrics: c.MetricsURLs, DataDirs: c.DataDirs, ProxyPID: c.ProxyPID, RestartWith: c.RestartWith}, nil
	}
}

// checkTiered refuses a plan whose topics use remote storage on a named
// cluster started without tiered storage (Kafka would refuse the topics).
func checkTiered(pc plan.Cluster, c *cluster.Cluster) error {
	if pc.Local.RemoteStorage && c.Tiered == nil {
		return userr.Errorf("%s: the plan's topics use remote storage (remote.storage.enable, wait_for: remote), and cluster %q has no tiered storage; start one with it: kbench cluster up --name %s --tiered-storage (or leave cluster.name out and set cluster.local.tiered_storage: true)", pc.NameAt, c.Name, c.Name)
	}
	return nil
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
