package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

type collectOptions struct {
	bootstrap     string
	commandConfig string
	out           string
	overwrite     bool
	timeout       time.Duration
}

func newCollectCmd(st *state) *cobra.Command {
	var o collectOptions
	cmd := &cobra.Command{
		Use:   "collect RUN_ID --bootstrap-server HOST:PORT [--command-config FILE] [--out DIR [--overwrite]]",
		Short: "Write the results folder of a distributed run from the slices its workers left on the cluster",
		Long: `Write the results folder of a plan that several workers ran (kbench run
--workers N --run-id RUN_ID --keep-control): every repeat's result slices are
read from the run's results topic on the cluster and merged exactly, as worker
0 merges them. Run it from any machine that reaches the cluster, for instance
when the workers ran as a Kubernetes Job (see docs/distributed.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return collect(cmd.Context(), st, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.bootstrap, "bootstrap-server", "", "the cluster the run used, HOST:PORT[,HOST:PORT...] (required)")
	f.StringVar(&o.commandConfig, "command-config", "", "Java client properties for the cluster (security), as the plan's cluster.properties")
	f.StringVar(&o.out, "out", "", "results folder (default results/NAME-UTCTIMESTAMP, the run's start)")
	f.BoolVar(&o.overwrite, "overwrite", false, "with --out: replace the results of an earlier run in that folder (refused otherwise)")
	f.Var(units.Duration(&o.timeout, 2*time.Minute), "timeout", "give up reading the run's topics after this long")
	return cmd
}

func collect(ctx context.Context, st *state, runID string, o collectOptions) error {
	if o.bootstrap == "" {
		return userr.Errorf("--bootstrap-server: give the cluster the run used, HOST:PORT")
	}
	props := map[string]string{}
	if o.commandConfig != "" {
		ps, err := kafkaconf.ReadFile(o.commandConfig)
		if err != nil {
			return err
		}
		for _, p := range ps {
			props[p.Key] = p.Value
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	doc, p, err := study.Collect(ctx, o.bootstrap, props, runID, st.stderr)
	if err != nil {
		return err
	}
	folder, err := study.OpenFolder(p, study.FolderOptions{Dir: o.out, Overwrite: o.overwrite, Started: doc.StartedAt, Log: st.stderr})
	if err != nil {
		return err
	}
	defer folder.Close()
	if err := folder.Final(doc); err != nil {
		return err
	}
	if err := report.WriteSummaryMarkdown(st.stdout, doc); err != nil {
		return err
	}
	fmt.Fprintf(st.stderr, "kbench: results of run %s in %s\n", runID, folder.Dir)
	if doc.Error != "" {
		return errors.New(doc.Error)
	}
	return crossedThresholds(st, doc)
}
