package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbench/kbench/internal/compare"
	"github.com/kbench/kbench/internal/userr"
)

type compareOptions struct {
	failIf []string
	out    string
}

func (o *compareOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.failIf, "fail-if", nil, "exit 1 when a scenario crosses RULE: METRIC OP PERCENT, a change from A, such as 'p99_ms>+10%' or 'records_per_sec<-5%'; or METRIC OP NUMBER, B's own value, such as 'lost>0' (repeatable)")
	fs.StringVar(&o.out, "out", "", "folder for compare.md and compare.html (default B's results folder, or the folder holding B's file)")
}

func newCompareCmd(st *state) *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare A B [--fail-if RULE ...] [--out DIR]",
		Short: "Compare two results, scenario by scenario: better, worse or within noise",
		Long: `compare reads two results, each a results folder of kbench run or a result file
(result.json of kbench run, or --json of producer-perf-test, consumer-perf-test or
end-to-end-latency), and shows for every scenario present in both, and every metric,
A's and B's figures, the change from A to B and a verdict. It prints a Markdown table
and writes compare.md and compare.html. See docs/compare.md.`,
		Example: `  kbench compare results/baseline results/candidate
  kbench compare baseline/result.json candidate/result.json --fail-if 'p99_ms>+10%' --fail-if 'records_per_sec<-5%'
  kbench compare results/failover-a results/failover-b --fail-if 'lost>0' --fail-if 'election_ms>+20%'`,
		Args: func(c *cobra.Command, args []string) error {
			// cobra's own check is not a usage error (it would exit 1).
			if len(args) != 2 {
				return userr.Errorf("%s: takes two results, A and B, each a results folder or a result file; got %d (see '%s --help')", c.Name(), len(args), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runCompare(c.Context(), opts, args[0], args[1], st.stdout)
		},
	}
	opts.AddFlags(cmd.Flags())
	return cmd
}

// runCompare compares B with A, prints the table on w and writes the
// files; a crossed --fail-if rule is a *compare.Crossed, returned after
// everything is written. Reading two files takes no time to cancel, so
// ctx is not consulted.
func runCompare(_ context.Context, opts compareOptions, pathA, pathB string, w io.Writer) error {
	// Rules are checked before any result is read: a typo fails at once.
	var rules []compare.Rule
	for _, s := range opts.failIf {
		r, err := compare.ParseRule(s)
		if err != nil {
			return err
		}
		rules = append(rules, r)
	}
	a, err := compare.Load(pathA)
	if err != nil {
		return err
	}
	b, err := compare.Load(pathB)
	if err != nil {
		return err
	}
	rep := compare.Compare(a, b)
	crossings, err := compare.Check(rep, rules)
	if err != nil {
		return err
	}
	if err := compare.WriteMarkdown(w, rep); err != nil {
		return err
	}
	out := opts.out
	if out == "" {
		out = b.Dir
	}
	if err := compare.WriteFiles(out, rep); err != nil {
		return err
	}
	if len(crossings) > 0 {
		return &compare.Crossed{Crossings: crossings}
	}
	return nil
}
