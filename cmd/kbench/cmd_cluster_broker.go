package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/userr"
)

// brokerKinds are the fault kinds that are `kbench cluster NAME --broker
// N` commands (faults.Kind.Manual): the local cluster's fault actions, by
// hand.
func brokerKinds() []faults.Kind {
	kinds := faults.Kinds()
	var out []faults.Kind
	for _, name := range faults.Names(kinds) {
		if k := kinds[name]; k.Manual != nil {
			out = append(out, k)
		}
	}
	return out
}

type clusterBrokerOptions struct {
	name   string
	broker int
	given  bool // --broker was given (0 included)
}

func (o *clusterBrokerOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.name, "name", cluster.DefaultName, "cluster name")
	f.IntVar(&o.broker, "broker", 0, "the broker's node id, 1 to the cluster's brokers (see kbench cluster status)")
}

func newClusterBrokerCmd(st *state, k faults.Kind) *cobra.Command {
	var o clusterBrokerOptions
	cmd := &cobra.Command{
		Use:     k.Name + " --broker N [--name NAME]",
		Short:   k.Manual.Short,
		Example: fmt.Sprintf("  kbench cluster %s --broker 2\n  kbench cluster status", k.Name),
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.given = c.Flags().Changed("broker")
			return runClusterBroker(c.Context(), k, o, st)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runClusterBroker carries out kind k's Broker action on one broker of a
// cluster that `cluster up` (or a plan, or a test) started, from another
// process: the cluster's state says which processes are its brokers.
func runClusterBroker(ctx context.Context, k faults.Kind, o clusterBrokerOptions, st *state) error {
	action, m := k.Name, k.Manual
	c, err := loadCluster(st, action, o.name)
	if err != nil {
		return err
	}
	if _, ok := c.Broker(o.broker); !ok {
		what := fmt.Sprintf("--broker %d", o.broker)
		if !o.given {
			what = "--broker is missing"
		}
		return userr.Errorf("cluster %s: %s: cluster %q has brokers 1 to %d; say which one, e.g. --broker 1", action, what, c.Name, len(c.Brokers))
	}
	began := time.Now()
	if m.Waiting != "" {
		fmt.Fprintf(st.stderr, "%s broker %d of cluster %q; waiting until it has joined\n", m.Waiting, o.broker, c.Name)
	}
	err = k.Broker(ctx, c, o.broker)
	if errors.Is(err, cluster.ErrNotRunning) {
		return userr.Errorf("cluster %s: broker %d of cluster %q is not running; start it again with 'kbench cluster restart --name %s --broker %d' (see 'kbench cluster status --name %s')",
			action, o.broker, c.Name, c.Name, o.broker, c.Name)
	}
	if err != nil {
		return fmt.Errorf("cluster %s: %w", action, err)
	}
	b, _ := c.Broker(o.broker)
	fmt.Fprintln(st.stdout, brokerDone(m, c.Name, o.broker, b.PID, time.Since(began)))
	return nil
}

// brokerDone is the line a `kbench cluster NAME --broker N` command ends
// with: what the broker is now, how long a wait took, and what undoes it.
func brokerDone(m *faults.Manual, name string, broker, pid int, took time.Duration) string {
	line := fmt.Sprintf("broker %d %s (pid %d)", broker, m.Done, pid)
	if m.Waiting != "" {
		line += fmt.Sprintf(" in %.1fs", took.Seconds())
	}
	if m.Undo != "" {
		line += fmt.Sprintf("; %s with: kbench cluster %s --name %s --broker %d", m.UndoSays, m.Undo, name, broker)
	}
	return line
}
