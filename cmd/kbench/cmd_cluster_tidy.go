package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/userr"
)

// A plan on a local cluster holds the cluster's run lock (outfile.Lock on
// its folder) while it runs: the faults it sets on the cluster are then
// its own. Faults on the proxies while no run holds the lock were left by
// a run that died (kill -9): status says so and fails, a run refuses to
// measure through them, and `cluster heal` clears them.

// lockForRun takes c's run lock for a plan: a second plan on the same
// cluster at once is refused (each would measure the other's load and
// faults), and so are faults left on its proxies by a run that died.
func lockForRun(ctx context.Context, c *cluster.Cluster, at string) (unlock func(), err error) {
	unlock, err = outfile.Lock(c.Dir)
	var busy *outfile.BusyError
	if errors.As(err, &busy) {
		who := "another kbench run"
		if busy.PID > 0 {
			who = fmt.Sprintf("another kbench run (process %d)", busy.PID)
		}
		return nil, userr.Errorf("%s: cluster %q is in use by %s: two runs on one cluster measure each other's load and faults; wait for it, or give this plan another cluster", at, c.Name, who)
	}
	if err != nil {
		return nil, fmt.Errorf("lock cluster %q for the run: %w", c.Name, err)
	}
	left, err := leftoverFaults(ctx, c)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("%s: cluster %q: %w", at, c.Name, err)
	}
	if len(left) > 0 {
		unlock()
		return nil, userr.Errorf("%s: cluster %q has network faults no run owns, left by a run that was killed (%s); the plan would measure through them: clear them with kbench cluster heal --name %s", at, c.Name, strings.Join(left, "; "), c.Name)
	}
	return unlock, nil
}

// leftoverFaults lists the proxied paths with a fault ("node 1 → broker 2:
// delay 20ms"): none on a cluster without network proxies.
func leftoverFaults(ctx context.Context, c *cluster.Cluster) ([]string, error) {
	ns, err := c.NetworkStatus(ctx)
	if err != nil || ns == nil || !ns.Answers {
		return nil, err // proxies that do not answer fail status and the run on their own
	}
	var out []string
	for _, p := range ns.Paths {
		if d := p.Describe(); d != "none" {
			out = append(out, fmt.Sprintf("%s: %s", p.Proxy, d))
		}
	}
	return out, nil
}

// runOwner says which run holds c ("" when none does).
func runOwner(c *cluster.Cluster) string {
	if !outfile.Held(c.Dir) {
		return ""
	}
	if pid := outfile.HolderPID(c.Dir); pid > 0 {
		return fmt.Sprintf("the kbench run in process %d", pid)
	}
	return "a kbench run"
}

func newClusterHealCmd(st *state) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "heal [--name NAME]",
		Short: "Bring a local cluster back whole: resume paused brokers, start stopped ones, clear every network fault",
		Long: `Bring a local cluster back whole, as a plan's faults leave it at their end:
paused brokers resumed, brokers that are down started again with their data,
every fault on the network proxies cleared. For what a run killed before its
end left behind; refused while a run holds the cluster.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runClusterHeal(c.Context(), name, st) },
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster name")
	return cmd
}

func runClusterHeal(ctx context.Context, name string, st *state) error {
	c, err := loadCluster(st, "heal", name)
	if err != nil {
		return err
	}
	if owner := runOwner(c); owner != "" {
		return userr.Errorf("cluster heal: cluster %q is in use by %s, whose faults are its own: it heals them when it ends", name, owner)
	}
	left, err := leftoverFaults(ctx, c)
	if err != nil {
		return fmt.Errorf("cluster heal: %w", err)
	}
	healed, err := c.Heal(ctx)
	for _, h := range healed {
		fmt.Fprintf(st.stderr, "kbench: cluster %s: %s broker %d\n", name, h.Action, h.ID)
	}
	if len(left) > 0 {
		fmt.Fprintf(st.stderr, "kbench: cluster %s: cleared the network faults of %d path(s): %s\n", name, len(left), strings.Join(left, "; "))
	}
	if err != nil {
		return fmt.Errorf("cluster heal: %w", err)
	}
	if len(healed) == 0 && len(left) == 0 {
		fmt.Fprintf(st.stderr, "kbench: cluster %s: nothing to heal\n", name)
	}
	return nil
}

func newClusterCleanCmd(st *state) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "clean [--name NAME]",
		Short: "Delete every topic and group runs left on a local cluster (Kafka's internal topics kept)",
		Long: `Delete every topic (Kafka's internal ones kept) and every consumer and share
group from a local cluster: what the runs on it left. A broker that holds
hundreds of other runs' partitions recovers them all after a fault, and the
next study's election and ISR figures would be theirs too. Refused while a
run holds the cluster.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runClusterClean(c.Context(), name, st) },
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster name")
	return cmd
}

func runClusterClean(ctx context.Context, name string, st *state) error {
	c, err := loadCluster(st, "clean", name)
	if err != nil {
		return err
	}
	if owner := runOwner(c); owner != "" {
		return userr.Errorf("cluster clean: cluster %q is in use by %s; clean it once the run has ended", name, owner)
	}
	topics, groups, err := c.Clean(ctx)
	fmt.Fprintf(st.stderr, "kbench: cluster %s: deleted %d topic(s) and %d group(s)\n", name, len(topics), len(groups))
	for _, t := range topics {
		fmt.Fprintln(st.stdout, "topic "+t)
	}
	for _, g := range groups {
		fmt.Fprintln(st.stdout, "group "+g)
	}
	if err != nil {
		return fmt.Errorf("cluster clean: %w", err)
	}
	return nil
}
