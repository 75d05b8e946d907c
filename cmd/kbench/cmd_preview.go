package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/userr"
)

func newPreviewCmd(st *state) *cobra.Command {
	var (
		sets     []string
		workload string
		scenario int
		n        int
	)
	cmd := &cobra.Command{
		Use:   "preview PLAN.yaml [--workload NAME] [--scenario N] [-n 5]",
		Short: "Print the records a plan's producers would send (keys and values), without sending them",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 1 || n > 10000 {
				return userr.Errorf("-n %d: print from 1 to 10000 records", n)
			}
			p, err := plan.Load(cmd.Context(), args[0], sets, study.PlanTypes()...)
			if err != nil {
				return err
			}
			scs, _ := p.Scenarios()
			if scenario < 1 || scenario > len(scs) {
				return userr.Errorf("--scenario %d: the plan has scenarios 1 to %d", scenario, len(scs))
			}
			sc := &scs[scenario-1]
			seed := study.RunSeed(p)
			recs, order, err := study.Preview(p, sc, workload, n, seed)
			if err != nil {
				return err
			}
			if !p.SeedSet {
				fmt.Fprintf(st.stdout, "# seed %d (a fresh one each time; --set seed=%d shows these records again)\n", seed, seed)
			}
			for _, name := range order {
				fmt.Fprintf(st.stdout, "# scenario %d (%s), workload %s\n", sc.Index, sc.Name, name)
				var jsonBytes, encBytes int
				format := ""
				for _, r := range recs[name] {
					switch {
					case r.Key != nil && r.Format != "":
						fmt.Fprintf(st.stdout, "key=%q ", r.Key) // perhaps encoded: binary
					case r.Key != nil:
						fmt.Fprintf(st.stdout, "key=%s ", r.Key)
					}
					for _, h := range r.Headers {
						fmt.Fprintf(st.stdout, "header %s=%s ", h.Key, h.Value)
					}
					fmt.Fprintf(st.stdout, "%s\n", r.Value)
					if r.Format != "" {
						format = r.Format
						jsonBytes += len(r.Value)
						encBytes += len(r.Encoded)
						fmt.Fprintf(st.stdout, "#   %s: %d bytes sent (with 5+ bytes of registry framing), %d bytes as JSON\n", r.Format, len(r.Encoded), len(r.Value))
					}
				}
				if format != "" {
					k := len(recs[name])
					fmt.Fprintf(st.stdout, "# workload %s: %s values average %.1f bytes sent, %.1f bytes as JSON (%.2f×)\n",
						name, format, float64(encBytes)/float64(k), float64(jsonBytes)/float64(k), float64(encBytes)/float64(jsonBytes))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&sets, "set", nil, "override a plan value, as kbench run --set")
	f.StringVar(&workload, "workload", "", "only this producing workload (default: all)")
	f.IntVar(&scenario, "scenario", 1, "the scenario's number, as --dry-run lists them")
	f.IntVarP(&n, "records", "n", 5, "records to print per workload")
	return cmd
}
