package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// newClusterCmd groups the commands that run a local Kafka cluster.
func newClusterCmd(st *state) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run a local Apache Kafka cluster (KRaft) on 127.0.0.1",
		Long: `Run a real Apache Kafka cluster on 127.0.0.1 (or with its client listener on
another address of the machine: up --advertise-host), fetched from Maven Central with
mvn on first use and run with the local Java (17 or newer). See docs/cluster.md.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return userr.Errorf("unknown command %q for 'kbench cluster' (see 'kbench cluster --help')", args[0])
			}
			return c.Help()
		},
	}
	cmd.AddCommand(newClusterUpCmd(st), newClusterDownCmd(st), newClusterStatusCmd(st), newClusterHealCmd(st), newClusterCleanCmd(st), newClusterClasspathCmd(st), newClusterProxiesCmd(st))
	for _, k := range brokerKinds() {
		cmd.AddCommand(newClusterBrokerCmd(st, k))
	}
	return cmd
}

// clusterStateDir is where local clusters live: st.stateDir, else
// clusters/ in the cache dir (the cluster package's own default).
func clusterStateDir(st *state) string {
	if st.stateDir != "" {
		return st.stateDir
	}
	return filepath.Join(st.cacheDir, "clusters")
}

// clusterOpts are the options every cluster command takes from the process:
// directories, progress output, and Java from $JAVA_HOME as Kafka's own
// scripts do.
func clusterOpts(st *state) []cluster.Opt {
	opts := []cluster.Opt{
		cluster.WithCacheDir(st.cacheDir),
		cluster.WithStateDir(clusterStateDir(st)),
		cluster.WithLog(st.stderr),
	}
	if home := st.getenv("JAVA_HOME"); home != "" {
		opts = append(opts, cluster.WithJava(filepath.Join(home, "bin", "java")))
	}
	// A network-faults cluster's proxies run in a kbench process of their
	// own (`kbench cluster proxies`), started from this executable.
	if exe, err := os.Executable(); err == nil {
		opts = append(opts, cluster.WithProxyCommand(exe, "cluster", "proxies"))
	}
	return opts
}

// clusterErr marks bad option values as the user's to fix (exit code 2),
// naming the flag.
func clusterErr(cmd string, err error) error {
	var oe *cluster.OptionError
	if errors.As(err, &oe) {
		return userr.Errorf("cluster %s: --%s %q: %s", cmd, oe.Option, oe.Value, oe.Reason)
	}
	return fmt.Errorf("cluster %s: %w", cmd, err)
}

type clusterUpOptions struct {
	brokers  int
	name     string
	heap     string
	version  string
	timeout  time.Duration
	security string
	portBase int
	network  bool
	registry bool
	tiered   bool
	host     string
}

func (o *clusterUpOptions) AddFlags(f *pflag.FlagSet) {
	f.IntVar(&o.brokers, "brokers", 1, fmt.Sprintf("number of brokers: 1, or 3 to survive a broker failure (at most %d)", cluster.MaxBrokers))
	f.StringVar(&o.name, "name", cluster.DefaultName, "cluster name; several can run side by side")
	f.StringVar(&o.heap, "heap", cluster.DefaultHeap, "JVM heap of each broker, like 512m or 2g (at least "+cluster.MinHeap+")")
	f.StringVar(&o.version, "kafka-version", cluster.DefaultVersion, "Apache Kafka release to run (any 4.x release Maven Central serves, like 4.1.2)")
	f.Var(units.Duration(&o.timeout, cluster.DefaultStartTimeout), "timeout", "how long to wait for the brokers to answer")
	f.StringVar(&o.security, "security", "", "secure the client listener: sasl_ssl (TLS, SCRAM-SHA-512/256 and PLAIN users) or ssl (mutual TLS); a generated CA and a ready client properties file (see docs/security.md)")
	f.BoolVar(&o.network, "network-faults", false, "run every connection (clients to brokers, brokers to brokers, to the controllers) through proxies kbench owns, so that network faults can be set per path (Linux; see docs/cluster.md)")
	f.BoolVar(&o.registry, "schema-registry", false, "also start a schema registry (Apicurio Registry "+cluster.DefaultRegistryVersion+", fetched once with mvn, in memory) on 127.0.0.1; prints schema.registry.url=... (see docs/cluster.md)")
	f.BoolVar(&o.tiered, "tiered-storage", false, "start the brokers with remote log storage (tiered storage, KIP-405) through Kafka's LocalTieredStorage, the remote tier a folder of the cluster's; topics with remote.storage.enable=true move their closed segments there (see docs/cluster.md)")
	f.StringVar(&o.host, "advertise-host", "", "put the client listener on this address of the machine (an IP address or host name) instead of 127.0.0.1, and advertise it, so that clients on other hosts reach the brokers; the controllers stay on loopback (not with --network-faults; see docs/cluster.md)")
	f.IntVar(&o.portBase, "port-base", 0, "fixed ports instead of free ones: broker N listens on PORT+N-1 for clients and PORT+10+N-1 for the controller quorum, so the bootstrap stays the same from one up to the next (e.g. 19092)")
}

func newClusterUpCmd(st *state) *cobra.Command {
	var o clusterUpOptions
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a local cluster; prints bootstrap.servers=... as the last line of stdout",
		Example: `  kbench cluster up --brokers 3
  BOOTSTRAP=$(kbench cluster up | tail -1 | cut -d= -f2)
  kbench cluster up --brokers 3 --port-base 19092     # bootstrap 127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094
  kbench cluster up --name secure --security sasl_ssl
  kbench cluster up --brokers 3 --network-faults       # every path through a proxy (see cluster status)
  kbench cluster up --schema-registry                  # and Apicurio Registry: schema.registry.url=...
  kbench cluster up --tiered-storage                   # remote log storage in a folder of the cluster's
  kbench cluster up --advertise-host 10.0.0.5          # clients on other hosts: bootstrap 10.0.0.5:PORT`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkUpInPart(c.Flags(), o, st); err != nil {
				return err
			}
			if done, err := addRegistryUp(c.Context(), o, st); done || err != nil {
				return err
			}
			return runClusterUp(c.Context(), o, st)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// checkUpInPart refuses settings that cannot apply: `up` of a cluster that
// runs in part brings back its brokers that are down, with the cluster's
// own settings.
func checkUpInPart(f *pflag.FlagSet, o clusterUpOptions, st *state) error {
	c, err := cluster.Load(clusterStateDir(st), o.name)
	if err != nil {
		return nil // none (or unreadable: Start says so)
	}
	running := false
	for _, b := range c.Brokers {
		if alive, _ := c.Proc(b.ID); alive {
			running = true
		}
	}
	if !running {
		return nil // replaced by a new cluster
	}
	have := map[string]string{"brokers": strconv.Itoa(len(c.Brokers)), "kafka-version": c.Version, "heap": c.Heap,
		"security": c.Security, "port-base": strconv.Itoa(c.PortBase), "network-faults": strconv.FormatBool(c.Network != nil), "tiered-storage": strconv.FormatBool(c.Tiered != nil), "advertise-host": c.Host()}
	given := map[string]string{"brokers": strconv.Itoa(o.brokers), "kafka-version": o.version, "heap": o.heap,
		"security": strings.ToLower(o.security), "port-base": strconv.Itoa(o.portBase), "network-faults": strconv.FormatBool(o.network), "tiered-storage": strconv.FormatBool(o.tiered), "advertise-host": o.host}
	for _, flag := range []string{"brokers", "kafka-version", "heap", "security", "port-base", "network-faults", "tiered-storage", "advertise-host"} {
		if f.Changed(flag) && given[flag] != have[flag] {
			return userr.Errorf("cluster up: --%s %s: cluster %q already runs (in whole or in part) with --%s %q; up brings back its brokers that are down with its own settings. Leave --%s out, or stop it first (kbench cluster down --name %s)",
				flag, given[flag], c.Name, flag, have[flag], flag, c.Name)
		}
	}
	return nil
}

// addRegistryUp starts a schema registry beside a cluster that runs whole
// without one, when up is asked for one: the brokers keep running. done is
// false when there is nothing of the kind to do.
func addRegistryUp(ctx context.Context, o clusterUpOptions, st *state) (done bool, err error) {
	if !o.registry {
		return false, nil
	}
	c, err := cluster.Load(clusterStateDir(st), o.name)
	if err != nil || c.Registry != nil {
		return false, nil
	}
	statuses, err := c.Status(ctx)
	if err != nil {
		return false, nil
	}
	for _, s := range statuses {
		if s.State() != "up" {
			return false, nil // Start brings it back, registry and all
		}
	}
	if err := c.AddRegistry(ctx, clusterOpts(st)...); err != nil {
		return true, clusterErr("up", err)
	}
	fmt.Fprintf(st.stdout, "schema.registry.url=%s\nbootstrap.servers=%s\n", c.RegistryURL(), c.Bootstrap())
	return true, nil
}

func runClusterUp(ctx context.Context, o clusterUpOptions, st *state) error {
	opts := append(clusterOpts(st), cluster.WithSchemaRegistry(o.registry),
		cluster.WithBrokers(o.brokers), cluster.WithName(o.name),
		cluster.WithHeap(o.heap), cluster.WithVersion(o.version), cluster.WithStartTimeout(o.timeout),
		cluster.WithSecurity(o.security), cluster.WithPortBase(o.portBase), cluster.WithNetworkFaults(o.network),
		cluster.WithTieredStorage(o.tiered), cluster.WithHost(o.host))
	c, err := cluster.Start(ctx, opts...)
	if errors.Is(err, cluster.ErrRunning) {
		return userr.Errorf("cluster up: %v (kbench cluster down --name %s)", err, o.name)
	}
	if err != nil {
		return clusterErr("up", err)
	}
	printClientConfig(st.stderr, c)
	if c.Network != nil {
		fmt.Fprintf(st.stderr, "every connection runs through the network proxies (%d paths; see kbench cluster status --name %s)\n", len(c.Network.Proxies), c.Name)
	}
	if c.Tiered != nil {
		fmt.Fprintf(st.stderr, "tiered storage: the remote tier is %s (LocalTieredStorage); topics need remote.storage.enable=true and a small local.retention.ms or local.retention.bytes\n", c.Tiered.Dir)
	}
	fmt.Fprintf(st.stderr, "stop it with: kbench cluster down --name %s\n", c.Name)
	if u := c.RegistryURL(); u != "" {
		fmt.Fprintf(st.stdout, "schema.registry.url=%s\n", u)
	}
	_, err = fmt.Fprintf(st.stdout, "bootstrap.servers=%s\n", c.Bootstrap())
	return err
}

// loadCluster finds a cluster by name, saying which exist when it does not.
func loadCluster(st *state, cmd, name string) (*cluster.Cluster, error) {
	c, err := cluster.Load(clusterStateDir(st), name)
	if errors.Is(err, cluster.ErrNotFound) {
		return nil, userr.Errorf("cluster %s: no cluster named %q (known: %s; start one with 'kbench cluster up --name %s')", cmd, name, knownClusters(st), name)
	}
	if err != nil {
		return nil, clusterErr(cmd, err)
	}
	return c, nil
}

// knownClusters lists the local clusters' names, or says there are none.
func knownClusters(st *state) string {
	if names, _ := cluster.List(clusterStateDir(st)); len(names) > 0 {
		return strings.Join(names, ", ")
	}
	return "none"
}

type clusterDownOptions struct {
	name string
	keep bool
}

func (o *clusterDownOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.name, "name", cluster.DefaultName, "cluster name")
	f.BoolVar(&o.keep, "keep", false, "keep the data and logs (the next 'up' of this name replaces them)")
}

func newClusterDownCmd(st *state) *cobra.Command {
	var o clusterDownOptions
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop a local cluster and remove its data",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runClusterDown(c.Context(), o, st) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runClusterDown(ctx context.Context, o clusterDownOptions, st *state) error {
	c, err := loadCluster(st, "down", o.name)
	if err != nil {
		return err
	}
	fmt.Fprintf(st.stderr, "stopping cluster %q (%d broker(s))\n", c.Name, len(c.Brokers))
	if err := c.Stop(ctx, o.keep); err != nil {
		return fmt.Errorf("cluster down: %w", err)
	}
	if o.keep {
		fmt.Fprintf(st.stderr, "stopped; data and logs kept in %s\n", c.Dir)
	} else {
		fmt.Fprintln(st.stderr, "stopped and removed")
	}
	return nil
}

func newClusterStatusCmd(st *state) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each broker of a local cluster; exits 1 unless all are up",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runClusterStatus(c.Context(), name, st) },
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster name")
	return cmd
}

func runClusterStatus(ctx context.Context, name string, st *state) error {
	c, err := loadCluster(st, "status", name)
	if err != nil {
		return err
	}
	statuses, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("cluster status: %w", err)
	}
	fmt.Fprintf(st.stdout, "cluster %s: Apache Kafka %s, id %s, started %s\nbootstrap.servers=%s\n",
		c.Name, c.Version, c.ID, c.StartedAt.Local().Format(time.DateTime), c.Bootstrap())
	if u := c.RegistryURL(); u != "" {
		fmt.Fprintf(st.stdout, "schema.registry.url=%s\n", u)
	}
	fmt.Fprintln(st.stdout)
	tw := tabwriter.NewWriter(st.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BROKER\tPID\tPORT\tCONTROLLER\tSTATE\tLOG")
	down := 0
	for _, s := range statuses {
		if s.State() != "up" {
			down++
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\t%s\n", s.ID, s.PID, s.Port, s.ControllerPort, s.State(), s.LogPath)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printClientConfig(st.stdout, c)
	regErr := printRegistryStatus(ctx, st, c)
	if down > 0 {
		return fmt.Errorf("cluster status: %d of %d broker(s) not up", down, len(statuses))
	}
	if err := printNetworkStatus(ctx, st, c); err != nil {
		return err
	}
	return regErr
}

// printRegistryStatus shows a cluster's schema registry; one that does not
// run or answer makes status fail, as a broker that is not up does.
func printRegistryStatus(ctx context.Context, st *state, c *cluster.Cluster) error {
	rs, err := c.RegistryStatus(ctx)
	if err != nil {
		return fmt.Errorf("cluster status: %w", err)
	}
	if rs == nil {
		return nil
	}
	fmt.Fprintf(st.stdout, "\nschema registry: %s (Apicurio Registry %s, pid %d, %s, log %s)\n", rs.State(), rs.Version, rs.PID, rs.URL(), rs.LogPath)
	switch rs.State() {
	case "up":
	case "unresponsive":
		// up starts a registry that is gone, not one that runs.
		return fmt.Errorf("cluster status: the schema registry runs (pid %d) and does not answer on %s: see its log %s; to restart it (empty): kill %d, then kbench cluster up --name %s --schema-registry", rs.PID, rs.URL(), rs.LogPath, rs.PID, c.Name)
	default:
		return fmt.Errorf("cluster status: the schema registry is %s; bring it back (empty) with: kbench cluster up --name %s --schema-registry", rs.State(), c.Name)
	}
	return nil
}

// printNetworkStatus shows a network-faults cluster's proxies: each path,
// where it listens, where it leads and its faults. Proxies that do not run
// or answer make status fail, as a broker that is not up does.
func printNetworkStatus(ctx context.Context, st *state, c *cluster.Cluster) error {
	ns, err := c.NetworkStatus(ctx)
	if err != nil {
		return fmt.Errorf("cluster status: %w", err)
	}
	if ns == nil {
		return nil
	}
	state := "up"
	switch {
	case !ns.Alive && ns.Down != "":
		state = ns.Down
	case !ns.Alive:
		state = "dead"
	case !ns.Answers:
		state = "unresponsive"
	}
	fmt.Fprintf(st.stdout, "\nnetwork proxies: %s (pid %d, API on %s, log %s)\n", state, ns.PID, ns.API, ns.LogPath)
	tw := tabwriter.NewWriter(st.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tLISTEN\tUPSTREAM\tFAULTS")
	for _, p := range ns.Paths {
		faults := p.Describe()
		if !ns.Answers {
			faults = "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Proxy, p.Listen, p.Upstream, faults)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if state != "up" {
		return fmt.Errorf("cluster status: the network proxies are %s; bring them back with: kbench cluster up --name %s", state, c.Name)
	}
	left, err := leftoverFaults(ctx, c)
	if err != nil || len(left) == 0 {
		return err
	}
	if owner := runOwner(c); owner != "" {
		fmt.Fprintf(st.stdout, "the faults above are %s's\n", owner)
		return nil
	}
	// Regression: faults left by a run killed with kill -9 were listed,
	// exit 0, and the next plan measured through them without a word.
	return fmt.Errorf("cluster status: %d path(s) have network faults no run owns, left by a run that was killed; the next run would measure through them: clear them with kbench cluster heal --name %s", len(left), c.Name)
}

// newClusterProxiesCmd is the process that serves a network-faults
// cluster's proxies, started by `cluster up --network-faults` (and by a
// plan's own cluster): not for users, hidden.
func newClusterProxiesCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:    "proxies CONFIG",
		Short:  "Serve a network-faults cluster's proxies (started by kbench itself)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return cluster.ServeProxies(c.Context(), args[0], st.stderr)
		},
	}
}

func newClusterClasspathCmd(st *state) *cobra.Command {
	var registry bool
	cmd := &cobra.Command{
		Use:     "classpath",
		Short:   "Print the Kafka jars' classpath (fetching them first if needed), for java -cp",
		Example: `  java -cp "$(kbench cluster classpath)" org.apache.kafka.tools.ProducerPerformance --help`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			d, err := cluster.Fetch(c.Context(), clusterOpts(st)...)
			if err != nil {
				return clusterErr("classpath", err)
			}
			if registry {
				if _, err := cluster.FetchRegistry(c.Context(), clusterOpts(st)...); err != nil {
					return clusterErr("classpath", err)
				}
			}
			_, err = fmt.Fprintln(st.stdout, d.Classpath())
			return err
		},
	}
	cmd.Flags().BoolVar(&registry, "schema-registry", false, "also fetch the schema registry (Apicurio Registry) that cluster up --schema-registry runs")
	return cmd
}

// printClientConfig says, for a secured cluster, where its ready client
// properties file is and how to use it (never the password itself).
func printClientConfig(w io.Writer, c *cluster.Cluster) {
	if c.Secrets == nil {
		return
	}
	what := map[string]string{cluster.SecuritySASLSSL: "SASL_SSL with SCRAM-SHA-512 (user " + cluster.SCRAMUser + "; PLAIN user " + cluster.PLAINUser + ")", cluster.SecuritySSL: "mutual TLS"}[c.Security]
	fmt.Fprintf(w, "client properties (%s): %s\n", what, c.Secrets.ClientConfig)
	fmt.Fprintf(w, "  e.g. kbench producer-perf-test --topic t --num-records 1000 --record-size 100 --throughput -1 --bootstrap-server %s --producer.config %s\n",
		strings.Split(c.Bootstrap(), ",")[0], c.Secrets.ClientConfig)
	fmt.Fprintf(w, "  certificates, PKCS12 and JKS stores and the password are in %s\n", c.Secrets.Dir)
}
