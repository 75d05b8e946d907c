package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/kube"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// newKubernetesCmd groups the commands that run kbench on Kubernetes.
func newKubernetesCmd(st *state) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubernetes",
		Short: "Run a plan on Kubernetes: manifest prints an Indexed Job of kbench workers",
		Long: `Run a plan as a distributed run on Kubernetes: 'kbench kubernetes manifest' prints
the objects to apply (see docs/distributed.md).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			var names []string
			for _, sub := range c.Commands() {
				names = append(names, sub.Name())
			}
			hint := suggest.Hint(args[0], names, suggest.Quoted)
			if hint != "" {
				hint = "; " + hint
			}
			return userr.Errorf("unknown command %q for 'kbench kubernetes'%s (see 'kbench kubernetes --help')", args[0], hint)
		},
	}
	cmd.SetFlagErrorFunc(flagErrorHint)
	cmd.AddCommand(newKubeManifestCmd(st))
	return cmd
}

// flagErrorHint words a flag error as the root command does, with the
// did-you-mean of an unknown flag among the command's flags.
func flagErrorHint(c *cobra.Command, err error) error {
	hint := ""
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: "); ok {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
		if h := suggest.Hint(name, names, suggest.Bare); h != "" {
			hint = "; " + h
		}
	}
	return userr.Errorf("%s: %v%s (see '%s --help')", strings.TrimPrefix(c.CommandPath(), "kbench "), err, hint, c.CommandPath())
}

type kubeManifestOptions struct {
	workers        int
	workersGiven   bool // --workers was given: 0 is then a wrong count, not a missing flag
	image          string
	namespace      string
	name           string
	sets           []string
	cpu, memory    string
	spread         string
	deadline       time.Duration
	serviceAccount string
}

// Each worker pod's default resources, requests and limits alike.
const (
	defaultWorkerCPU    = "1"
	defaultWorkerMemory = "1Gi"
)

func (o *kubeManifestOptions) AddFlags(f *pflag.FlagSet) {
	f.IntVar(&o.workers, "workers", 0, fmt.Sprintf("number of kbench workers, one pod each (1 to %d; required)", kube.MaxWorkers))
	f.StringVar(&o.image, "image", "", "the kbench image the pods run, built from the repository's Dockerfile and pushed where the cluster pulls from (required)")
	f.StringVar(&o.namespace, "namespace", "", "namespace of the Job (default kubectl's current one)")
	f.StringVar(&o.name, "name", "", "name of the Job, and the run id for kbench collect (default the plan's name and the UTC time, such as catch-up-20260131-150405)")
	f.StringArrayVar(&o.sets, "set", nil, "override a plan value in every worker, as kbench run --set does: cluster.bootstrap=kafka.kafka.svc:9092 (repeatable)")
	f.StringVar(&o.cpu, "cpu", defaultWorkerCPU, "CPU of each worker pod, requested and its limit (a Kubernetes quantity: 2, 500m)")
	f.StringVar(&o.memory, "memory", defaultWorkerMemory, "memory of each worker pod, requested and its limit (a Kubernetes quantity: 2Gi, 512Mi)")
	f.StringVar(&o.spread, "spread", string(kube.Preferred), "keep workers on different nodes: preferred (share nodes when there are fewer nodes than workers) or required (pods stay pending when there are fewer nodes than workers, and the run waits for them until it fails)")
	f.Var(units.Duration(&o.deadline, 0), "deadline", "stop the Job after this long, such as 2h (default from the plan's --dry-run estimate: twice its measuring time plus a minute a scenario run plus 15m; required when the plan's length is unknown)")
	f.StringVar(&o.serviceAccount, "service-account", "", "service account of the pods, for fault commands that call kubectl (default none: no API token is mounted)")
}

func newKubeManifestCmd(st *state) *cobra.Command {
	var o kubeManifestOptions
	cmd := &cobra.Command{
		Use:   "manifest PLAN.yaml --workers N --image IMAGE [--namespace NS] [--name NAME] [--set PATH=VALUE ...] [--cpu Q] [--memory Q] [--spread preferred|required] [--deadline D] [--service-account SA]",
		Short: "Print an Indexed Job of N kbench workers carrying the plan, for kubectl apply -f",
		Long: `Print, as YAML, an Indexed Job whose N pods run PLAN.yaml together: kbench run
/etc/kbench/plan.yaml --workers N --keep-control, the run id taken from the Job's
name. The Job carries the plan (an annotation of its pods, mounted as the file), so
its TTL or kubectl delete removes everything. The plan is checked first,
as kbench run --dry-run checks it, and must name its cluster (cluster.bootstrap).
When the Job is complete, kbench collect NAME --bootstrap-server HOST:PORT writes
the results folder. See docs/distributed.md.`,
		Example: `  kbench kubernetes manifest examples/catch-up.yaml --workers 3 --image registry.example.com/kbench:1.0 --set cluster.bootstrap=kafka.kafka.svc:9092 > kbench-job.yaml
  kubectl apply -f kbench-job.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.workersGiven = c.Flags().Changed("workers")
			return runKubeManifest(c.Context(), st, args[0], o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runKubeManifest checks the flags and the plan, then prints the
// manifest; nothing is printed unless everything checks. It talks to
// nothing; ctx interrupts the reading of the plan and its files.
func runKubeManifest(ctx context.Context, st *state, path string, o kubeManifestOptions) error {
	job, err := kubeFlags(o)
	if err != nil {
		return err
	}
	p, runs, err := checkDistributedPlan(ctx, st, path, o.sets)
	if err != nil {
		return err
	}
	text, err := infile.ReadContext(ctx, path, plan.MaxFile, "a plan")
	if err != nil {
		return userr.Errorf("%s: %v", path, err)
	}
	if err := kube.CheckPlan(text); err != nil {
		return userr.Errorf("%s: %v", path, err)
	}
	if err := checkPlanAlone(ctx, st, path, text, o.sets); err != nil {
		return err
	}
	why := "given by --deadline"
	if job.Deadline == 0 {
		if runs.unknown > 0 {
			return userr.Errorf("%s: %d scenario(s) of unknown length (records without a rate, or a rate search), so the Job's deadline cannot come from the plan; give --deadline, such as --deadline 6h (Kubernetes stops every worker when it passes)", path, runs.unknown)
		}
		job.Deadline = kube.Deadline(runs.measuring, runs.count)
		why = fmt.Sprintf("from the plan's %s of measuring over %d scenario run(s) (kbench run --dry-run): twice that, 1m a run, 15m to start", runs.measuring.Round(time.Second), runs.count)
	}
	if job.Name == "" {
		job.Name = kube.Name(p.Name, time.Now(), job.Workers)
	} else if err := kube.CheckName(job.Name, job.Workers); err != nil {
		return userr.Errorf("--name %s: %v; such as --name %s", job.Name, err, kube.Name(p.Name, time.Now(), job.Workers))
	}
	job.Plan, job.Sets = text, o.sets
	var out bytes.Buffer // written whole or not at all
	fmt.Fprintf(&out, "# kbench %s: kbench kubernetes manifest %s, %d worker(s).\n", version, filepath.Base(path), job.Workers)
	fmt.Fprintf(&out, "# activeDeadlineSeconds %d: %s.\n", int64(job.Deadline/time.Second), why)
	if err := kube.Write(&out, job); err != nil {
		return err
	}
	_, err = st.stdout.Write(out.Bytes())
	return err
}

// kubeFlags checks the flags that need no plan and returns the Job they
// describe so far.
func kubeFlags(o kubeManifestOptions) (kube.Job, error) {
	j := kube.Job{Namespace: o.namespace, Image: o.image, Workers: o.workers, Spread: kube.Spread(o.spread),
		Deadline: o.deadline, ServiceAccount: o.serviceAccount, Name: o.name}
	switch {
	case !o.workersGiven:
		return j, userr.Errorf("--workers: missing; give how many kbench workers (pods) run the plan, such as --workers 3")
	case o.workers < 1:
		return j, userr.Errorf("--workers %d: give how many kbench workers (pods) run the plan, 1 or more", o.workers)
	case o.workers > kube.MaxWorkers:
		return j, userr.Errorf("--workers %d: an Indexed Job runs at most %d pods", o.workers, kube.MaxWorkers)
	case strings.TrimSpace(o.image) == "":
		return j, userr.Errorf("--image: missing; give the kbench image built from the Dockerfile and pushed where the cluster pulls from, such as --image registry.example.com/kbench:1.0 (see docs/distributed.md)")
	case strings.ContainsAny(o.image, " \t\n"):
		return j, userr.Errorf("--image %q: an image reference has no spaces, such as registry.example.com/kbench:1.0", o.image)
	case !isSpread(o.spread):
		return j, userr.Errorf("--spread %q: give preferred or required%s", o.spread, hintOf(o.spread, kube.Spreads))
	case o.deadline < 0:
		return j, userr.Errorf("--deadline %s: must not be negative; give how long the Job may run, such as 2h", o.deadline)
	case o.deadline > 0 && o.deadline < time.Minute:
		return j, userr.Errorf("--deadline %s: too short for pods to start and meet; give at least 1m", o.deadline)
	}
	var err error
	if j.CPU, err = quantity("--cpu", o.cpu, "2 or 500m"); err != nil {
		return j, err
	}
	if j.Memory, err = quantity("--memory", o.memory, "2Gi or 512Mi"); err != nil {
		return j, err
	}
	if o.namespace != "" {
		if err := kube.CheckNamespace(o.namespace); err != nil {
			return j, userr.Errorf("--namespace %s: %v", o.namespace, err)
		}
	}
	if o.serviceAccount != "" {
		if err := kube.CheckServiceAccount(o.serviceAccount); err != nil {
			return j, userr.Errorf("--service-account %s: %v", o.serviceAccount, err)
		}
	}
	return j, nil
}

func isSpread(s string) bool {
	for _, v := range kube.Spreads {
		if s == v {
			return true
		}
	}
	return false
}

// hintOf is "; " and suggest.Hint's wording of the value nearest to s, or "".
func hintOf(s string, values []string) string {
	if h := suggest.Hint(s, values, suggest.Bare); h != "" {
		return "; " + h
	}
	return ""
}

// quantity parses a Kubernetes quantity given to flag, more than 0.
func quantity(flag, s, example string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, userr.Errorf("%s %q: not a Kubernetes quantity; give one such as %s", flag, s, example)
	}
	if q.Sign() <= 0 {
		return q, userr.Errorf("%s %s: must be more than 0, such as %s", flag, s, example)
	}
	return q, nil
}

// planRuns is how long a plan measures, as --dry-run estimates it.
type planRuns struct {
	measuring time.Duration
	unknown   int // scenarios of unknown length
	count     int // scenario runs: scenarios × repeats
}

// checkDistributedPlan loads and checks the plan as kbench run --dry-run
// does, warnings to stderr, and refuses one that names no cluster every
// worker can reach.
func checkDistributedPlan(ctx context.Context, st *state, path string, sets []string) (*plan.Plan, planRuns, error) {
	p, scenarios, err := checkedPlan(ctx, st.stderr, path, sets)
	if err != nil {
		return nil, planRuns{}, err
	}
	if p.Cluster.Name != "" {
		// --set cannot help: it adds values, and cluster.bootstrap beside
		// cluster.name is refused (they name two clusters).
		return nil, planRuns{}, userr.Errorf("%s: cluster.name %q is a local cluster from kbench cluster up, on one machine: the pods cannot reach it, and --set cannot take cluster.name out (cluster.bootstrap beside it is refused); in the plan, replace cluster.name with cluster.bootstrap: HOST:PORT, Kafka's bootstrap address as the pods see it (such as kafka.kafka.svc:9092), or leave cluster out of the plan and give --set cluster.bootstrap=HOST:PORT", path, p.Cluster.Name)
	}
	if p.Cluster.Bootstrap == "" {
		return nil, planRuns{}, userr.Errorf("%s: no cluster.bootstrap: the workers of a distributed run need a cluster they all reach (a local cluster kbench starts cannot be shared by several machines); add --set cluster.bootstrap=HOST:PORT, Kafka's bootstrap address as the pods see it, such as kafka.kafka.svc:9092", path)
	}
	warnSecrets(st.stderr, path, p)
	measuring, unknown := measuringTime(p, scenarios)
	return p, planRuns{measuring: measuring, unknown: unknown, count: len(scenarios) * p.Repeat}, nil
}

// warnSecrets warns of secret client properties: the manifest holds them
// in clear, in the Job's plan annotation or (from --set) in its args.
func warnSecrets(w io.Writer, path string, p *plan.Plan) {
	var keys []string
	for k := range p.Cluster.Properties {
		if plan.SecretKey(k) {
			keys = append(keys, "cluster.properties."+k)
		}
	}
	for k := range p.SchemaRegistry {
		if plan.SecretKey(k) {
			keys = append(keys, "schema_registry."+k)
		}
	}
	if len(keys) == 0 {
		return
	}
	slices.Sort(keys)
	fmt.Fprintf(w, "kbench: warning: %s: the manifest holds the secret values of %s in clear (in the plan the Job and its pods carry as an annotation, or in the Job's args for a --set): whoever can read Jobs and pods in the namespace can read them\n", path, strings.Join(keys, ", "))
}

// checkedPlan loads the plan with --set and checks it as --dry-run does.
func checkedPlan(ctx context.Context, stderr io.Writer, path string, sets []string) (*plan.Plan, []plan.Scenario, error) {
	p, _, err := loadPlan(ctx, path, runOptions{sets: sets})
	if err != nil {
		return nil, nil, err
	}
	scenarios, err := p.Scenarios()
	if err != nil {
		return nil, nil, err
	}
	warnings, err := study.CheckPlan(p, scenarios)
	if stderr != nil {
		for _, w := range warnings {
			fmt.Fprintf(stderr, "kbench: warning: %s\n", w)
		}
	}
	return p, scenarios, err
}

// checkPlanAlone checks the plan as the pods see it: its text alone at
// kube.PlanPath, without the files beside it (payload, template and
// schema files), which the Job does not carry.
func checkPlanAlone(ctx context.Context, st *state, path string, text []byte, sets []string) error {
	dir, err := os.MkdirTemp("", "kbench-manifest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	alone := filepath.Join(dir, kube.PlanKey)
	if err := os.WriteFile(alone, text, 0o600); err != nil {
		return err
	}
	_, _, err = checkedPlan(ctx, nil, alone, sets)
	if err == nil {
		return nil
	}
	msg := strings.ReplaceAll(err.Error(), dir, kube.PlanDir)
	return userr.New(errors.New(path + ": reads files beside it, and the pods get the plan alone (the Job carries it to " + kube.PlanDir + "): " + msg +
		"; write what the file holds into the plan (message.template, message.schema, message.size) instead"))
}
