package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/userr"
)

// brokerActions are the `kbench cluster ACTION --broker N` commands: the
// local cluster's fault actions, by hand.
var brokerActions = []struct{ name, short string }{
	{"kill", "Kill a broker of a local cluster (SIGKILL: a crash)"},
	{"stop", "Stop a broker of a local cluster cleanly (SIGTERM; SIGKILL after 30 s)"},
	{"pause", "Pause a broker of a local cluster (SIGSTOP: a hung process)"},
	{"resume", "Resume a paused broker of a local cluster (SIGCONT)"},
	{"restart", "Start a broker of a local cluster again (stopping it first if it runs), with its data, and wait until it has joined"},
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

func newClusterBrokerCmd(st *state, action, short string) *cobra.Command {
	var o clusterBrokerOptions
	cmd := &cobra.Command{
		Use:     action + " --broker N [--name NAME]",
		Short:   short,
		Example: fmt.Sprintf("  kbench cluster %s --broker 2\n  kbench cluster status", action),
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.given = c.Flags().Changed("broker")
			return runClusterBroker(c.Context(), action, o, st)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runClusterBroker carries out action on one broker of a cluster that
// `cluster up` (or a plan, or a test) started, from another process: the
// cluster's state says which processes are its brokers.
func runClusterBroker(ctx context.Context, action string, o clusterBrokerOptions, st *state) error {
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
	switch action {
	case "kill":
		err = c.Kill(o.broker)
	case "stop":
		err = c.StopBroker(ctx, o.broker)
	case "pause":
		err = c.Pause(o.broker)
	case "resume":
		err = c.Resume(o.broker)
	case "restart":
		fmt.Fprintf(st.stderr, "restarting broker %d of cluster %q; waiting until it has joined\n", o.broker, c.Name)
		err = c.Restart(ctx, o.broker)
	}
	if errors.Is(err, cluster.ErrNotRunning) {
		return userr.Errorf("cluster %s: broker %d of cluster %q is not running; start it again with 'kbench cluster restart --name %s --broker %d' (see 'kbench cluster status --name %s')",
			action, o.broker, c.Name, c.Name, o.broker, c.Name)
	}
	if err != nil {
		return fmt.Errorf("cluster %s: %w", action, err)
	}
	b, _ := c.Broker(o.broker)
	switch action {
	case "restart":
		fmt.Fprintf(st.stdout, "broker %d restarted (pid %d) in %.1fs\n", o.broker, b.PID, time.Since(began).Seconds())
	case "pause":
		fmt.Fprintf(st.stdout, "broker %d paused (pid %d); resume it with: kbench cluster resume --name %s --broker %d\n", o.broker, b.PID, c.Name, o.broker)
	case "resume":
		fmt.Fprintf(st.stdout, "broker %d resumed (pid %d)\n", o.broker, b.PID)
	default:
		fmt.Fprintf(st.stdout, "broker %d %s (pid %d); start it again with: kbench cluster restart --name %s --broker %d\n",
			o.broker, map[string]string{"kill": "killed", "stop": "stopped"}[action], b.PID, c.Name, o.broker)
	}
	return nil
}
