package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/userr"
)

func newPlanCmd(st *state) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Plans from other tools: from-omb prints an OpenMessaging Benchmark workload as a kbench plan",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return userr.Errorf("unknown command %q for 'kbench plan' (see 'kbench plan --help')", args[0])
			}
			return c.Help()
		},
	}
	cmd.AddCommand(newPlanFromOMBCmd(st))
	return cmd
}

type fromOMBOptions struct {
	ombDriver string
	sets      []string
}

func newPlanFromOMBCmd(st *state) *cobra.Command {
	var o fromOMBOptions
	cmd := &cobra.Command{
		Use:   "from-omb WORKLOAD.yaml --omb-driver DRIVER.yaml [--set FIELD=VALUE ...]",
		Short: "Print an OpenMessaging Benchmark workload and Kafka driver as the equivalent kbench plan",
		Long: `Print an OpenMessaging Benchmark (OMB) workload file, run with an OMB Kafka
driver file, as the kbench plan kbench runs for it (kbench run WORKLOAD.yaml
--omb-driver DRIVER.yaml), each value commented with the OMB field it comes
from. Save it to move on to kbench's own format: it loads and runs as any
plan. Secret property values are [redacted]: put them back. See docs/omb.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlanFromOMB(cmd.Context(), st, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.ombDriver, "omb-driver", "", "the OMB Kafka driver file (driver-kafka/*.yaml); required")
	f.StringArrayVar(&o.sets, "set", nil, "override an OMB field (producerRate=5000), a driver field (driver.replicationFactor=1, 'driver.producerConfig.linger\\.ms=5') or a kbench plan field (repeat=3) (repeatable)")
	return cmd
}

func runPlanFromOMB(ctx context.Context, st *state, path string, o fromOMBOptions) error {
	if o.ombDriver == "" {
		return userr.Errorf("plan from-omb: --omb-driver DRIVER.yaml is required: the OMB Kafka driver file the workload runs with, such as driver-kafka/kafka-throughput.yaml of OMB's repository")
	}
	omb, err := plan.LoadOMB(ctx, path, o.ombDriver, o.sets, study.PlanTypes()...)
	if err != nil {
		return err
	}
	scenarios, err := omb.Plan.Scenarios()
	if err != nil {
		return err
	}
	warnings, err := study.CheckPlan(omb.Plan, scenarios)
	for _, w := range warnings {
		fmt.Fprintf(st.stderr, "kbench: warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	for _, n := range omb.Notes {
		fmt.Fprintf(st.stderr, "kbench: note: %s\n", n)
	}
	_, err = st.stdout.Write(omb.YAML)
	return err
}

// loadPlan loads the plan kbench run runs: a kbench plan, or with
// --omb-driver an OMB workload translated into one (omb is then set).
func loadPlan(ctx context.Context, path string, o runOptions) (p *plan.Plan, omb *plan.OMB, err error) {
	if o.ombDriver == "" {
		p, err := plan.Load(ctx, path, o.sets, study.PlanTypes()...)
		if err != nil && ctx.Err() == nil && plan.LooksLikeOMB(path) {
			return nil, nil, userr.Errorf("%s is an OpenMessaging Benchmark workload: give its Kafka driver file with --omb-driver, such as driver-kafka/kafka-throughput.yaml of OMB's repository (see docs/omb.md)", path)
		}
		return p, nil, err
	}
	opts := study.PlanTypes()
	if o.ombNames != "" {
		opts = append(opts, plan.WithOMBNames(o.ombNames))
	}
	if omb, err = plan.LoadOMB(ctx, path, o.ombDriver, o.sets, opts...); err != nil {
		return nil, nil, err
	}
	return omb.Plan, omb, nil
}

// printOMB prints what each OMB field became and where kbench differs,
// for --dry-run.
func printOMB(w io.Writer, omb *plan.OMB, workload, driver string) {
	fmt.Fprintf(w, "OpenMessaging Benchmark workload %s with the Kafka driver %s:\n", workload, driver)
	for _, f := range omb.Fields {
		field := f.Field
		if f.File == "driver" {
			field = "driver." + field
		}
		fmt.Fprintf(w, "  %s: %s\n      → %s\n", field, f.Value, f.Becomes)
	}
	printNotes(w, omb, "note: ")
	fmt.Fprintf(w, "(kbench plan from-omb %s --omb-driver %s prints it as a kbench plan)\n", workload, driver)
}

// printNotes says where kbench runs the workload differently from OMB.
func printNotes(w io.Writer, omb *plan.OMB, prefix string) {
	for _, n := range omb.Notes {
		fmt.Fprintf(w, "%s%s\n", prefix, n)
	}
}
