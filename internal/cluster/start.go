package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// errPortInUse marks a start that lost a port picked by freePorts to
// another process; Start then retries with new ports.
var errPortInUse = errors.New("port already in use")

// startAttempts bounds the retries after losing a port race.
const startAttempts = 3

// Start fetches Kafka if needed, formats a new cluster under the state dir
// and starts its brokers, then waits until metadata lists all of them. A
// stopped cluster of the same name is replaced; a running one is an error
// wrapping ErrRunning; one with some brokers down or paused is brought back
// whole (Heal: with its own data and settings, whatever opts say) and
// returned. On failure Start stops what it started and keeps the directory
// for its logs; the error ends with the failing node's log tail.
func Start(ctx context.Context, opts ...Opt) (*Cluster, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.network {
		if err := checkLoopback(cfg.brokers); err != nil {
			return nil, err
		}
	}
	java, err := checkJava(ctx, cfg.java)
	if err != nil {
		return nil, err
	}
	dist, err := fetch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var reg *RegistryDist
	if cfg.registry {
		if reg, err = fetchRegistry(ctx, cfg); err != nil {
			return nil, err
		}
	}
	// Two `cluster up` of one name must not format the same directory.
	unlock, err := lockFile(ctx, filepath.Join(cfg.stateDir, ".locks", cfg.name+".lock"))
	if err != nil {
		return nil, fmt.Errorf("start cluster %q: %w", cfg.name, err)
	}
	defer unlock()
	old, err := running(cfg.stateDir, cfg.name)
	if err != nil {
		return nil, err
	}
	if old != nil {
		return old.revive(ctx, cfg, reg)
	}
	started.Add(1)
	for attempt := 1; ; attempt++ {
		c, err := startOnce(ctx, cfg, java, dist, reg)
		// Fixed ports lost to another process stay lost: no retry.
		if err == nil || attempt == startAttempts || !errors.Is(err, errPortInUse) || cfg.portBase > 0 {
			return c, err
		}
		fmt.Fprintln(cfg.log, "another process took a port; retrying with new ports")
	}
}

// started counts the new clusters Start began in this process.
var started atomic.Int64

// Started is how many new clusters (not ones brought back whole) Start
// began in this process, its retries on a port taken counted once: what
// a test binary's JVM cluster starts cost it, which the tests of
// cmd/kbench keep within a budget.
func Started() int64 { return started.Load() }

// running loads the cluster of that name if any of its brokers still run
// (nil when there is none, or none of its brokers runs).
func running(stateDir, name string) (*Cluster, error) {
	old, err := Load(stateDir, name)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w (remove %s if no broker of it runs)", err, filepath.Join(stateDir, name))
	}
	for _, b := range old.Brokers {
		if old.state(b) != procGone {
			return old, nil
		}
	}
	// No broker runs: a registry left behind would hold its port.
	if err := old.stopRegistry(context.Background()); err != nil {
		return nil, fmt.Errorf("start cluster %q: %w", name, err)
	}
	// Proxies left behind (their brokers died with the
	// machine's other processes, or were killed by hand) would hold the
	// ports and outlive the cluster that replaces this one.
	if err := old.stopProxies(context.Background()); err != nil {
		return nil, fmt.Errorf("start cluster %q: %w", name, err)
	}
	return nil, nil
}

func checkNotRunning(stateDir, name string) error {
	old, err := running(stateDir, name)
	if err != nil || old == nil {
		return err
	}
	return old.errRunning()
}

func (c *Cluster) errRunning() error {
	for _, b := range c.Brokers {
		if c.state(b) != procGone {
			b, _ = c.Broker(b.ID)
			return fmt.Errorf("start cluster %q: %w at %s (broker %d, pid %d): stop it first or use another name",
				c.Name, ErrRunning, c.Bootstrap(), b.ID, b.PID)
		}
	}
	return nil
}

// revive brings back the brokers of a cluster that some still run: the
// dead ones started again with their data, the paused ones resumed. A
// cluster whose brokers all run and answer is ErrRunning.
func (c *Cluster) revive(ctx context.Context, cfg config, reg *RegistryDist) (*Cluster, error) {
	c.log, c.startTimeout = cfg.log, cfg.startTimeout
	if c.Network != nil && len(cfg.proxyCmd) > 0 {
		// This kbench starts the proxies if they are gone: the one that
		// started the cluster may have moved or been a test binary.
		if err := c.updateNetwork(func(n *Network) { n.Command = cfg.proxyCmd }); err != nil {
			return nil, fmt.Errorf("start cluster %q: %w", c.Name, err)
		}
	}
	var down []string
	if c.Network != nil && c.proxyState() == procGone {
		down = append(down, "start the network proxies")
	}
	for _, id := range c.ids() {
		b, _ := c.Broker(id)
		switch c.state(b) {
		case procGone:
			down = append(down, fmt.Sprintf("start broker %d", id))
		case procStopped:
			down = append(down, fmt.Sprintf("resume broker %d", id))
		}
	}
	regDown := c.Registry != nil && c.registryState() == procGone
	if regDown {
		down = append(down, "start the schema registry (empty: it keeps schemas in memory)")
	}
	if len(down) == 0 {
		return nil, c.errRunning()
	}
	c.logf("cluster %q runs in part: %s, with its own data and settings", c.Name, strings.Join(down, ", "))
	if len(down) > 1 || !regDown {
		if _, err := c.Heal(ctx); err != nil {
			return nil, fmt.Errorf("start cluster %q: %w", c.Name, err)
		}
	}
	if regDown {
		if err := c.startRegistry(ctx); err != nil {
			return nil, fmt.Errorf("start cluster %q: %w", c.Name, err)
		}
	}
	c.logf("cluster %q up: %s", c.Name, c.Bootstrap())
	return c, nil
}

func startOnce(ctx context.Context, cfg config, java string, dist *Dist, reg *RegistryDist) (*Cluster, error) {
	began := time.Now()
	c, err := newCluster(cfg, java, dist, reg)
	if err != nil {
		return nil, err
	}
	// Leftovers of a stopped cluster (kept by Stop, or a failed start).
	if err := os.RemoveAll(c.Dir); err != nil {
		return nil, fmt.Errorf("start cluster %q: clear %s: %w", c.Name, c.Dir, err)
	}
	if c.Security != SecurityNone {
		if err := c.writeSecrets(); err != nil {
			return nil, err
		}
	}
	if err := c.writeConfigs(cfg.props); err != nil {
		return nil, err
	}
	// Saved before the first JVM starts, so `cluster status` and `cluster
	// down` see a start cut off while formatting (a Ctrl-C there used to
	// leave a folder that neither saw).
	if err := c.save(); err != nil {
		return nil, err
	}
	c.logf("formatting storage of %d node(s) in %s (cluster id %s)", len(c.Brokers), c.Dir, c.ID)
	if err := c.format(ctx); err != nil {
		return nil, c.unformat(ctx, err)
	}
	if c.Network != nil {
		// Before the brokers: they reach each other only through them.
		if err := c.startProxies(ctx); err != nil {
			return nil, c.abort(err)
		}
	}
	for _, b := range c.Brokers {
		if err := c.launch(b.ID); err != nil {
			return nil, c.abort(err)
		}
	}
	// Saved before waiting, so `cluster down` finds a half-started cluster.
	if err := c.save(); err != nil {
		return nil, c.abort(err)
	}
	// The registry starts beside the brokers: it needs none of them.
	var regProc *child
	if c.Registry != nil {
		if regProc, err = c.launchRegistry(); err != nil {
			return nil, c.abort(err)
		}
	}
	c.logf("started %d broker(s); waiting up to %s for them to answer metadata and for coordinators", len(c.Brokers), cfg.startTimeout)
	if err := c.waitReady(ctx, cfg.startTimeout, c.ids()); err != nil {
		return nil, c.abort(fmt.Errorf("start cluster %q: %w", c.Name, err))
	}
	if err := c.waitCoordinators(ctx, cfg.startTimeout); err != nil {
		return nil, c.abort(fmt.Errorf("start cluster %q: %w", c.Name, err))
	}
	if regProc != nil {
		if err := c.waitRegistry(ctx, regProc); err != nil {
			return nil, c.abort(fmt.Errorf("start cluster %q: %w", c.Name, err))
		}
		c.logf("schema registry up: Apicurio Registry %s, pid %d, %s", c.Registry.Version, c.Registry.PID, c.Registry.URL())
	}
	c.logf("cluster %q up in %.1fs: %s", c.Name, time.Since(began).Seconds(), c.Bootstrap())
	return c, nil
}

func newCluster(cfg config, java string, dist *Dist, reg *RegistryDist) (*Cluster, error) {
	id, err := newClusterID(rand.Reader)
	if err != nil {
		return nil, err
	}
	per := 2
	if cfg.security != SecurityNone {
		per = 3 // and an internal listener
	}
	if cfg.network || cfg.mtls {
		per = 4 // and the broker's own client listener behind its proxy, or its mutual TLS one
	}
	api := 0
	if cfg.network {
		api = 1 // the proxies' API
	}
	var ports, metricsPorts []int
	regPort := 0
	if cfg.portBase > 0 {
		ports, err = fixedPorts(cfg.portBase, cfg.brokers, per)
		if err == nil && api > 0 {
			ports = append(ports, cfg.portBase+networkAPISlot)
			err = fixedPort(cfg.portBase, cfg.portBase+networkAPISlot, "the network proxies' API")
		}
		if err == nil && reg != nil {
			regPort = cfg.portBase + registrySlot
			err = fixedPort(cfg.portBase, regPort, "the schema registry")
		}
	} else {
		// Picked at once, so that no two are the same.
		ports, err = freePorts(per*cfg.brokers + api + 1 + cfg.brokers)
		if err == nil {
			metricsPorts, ports = ports[len(ports)-cfg.brokers:], ports[:len(ports)-cfg.brokers]
			regPort, ports = ports[len(ports)-1], ports[:len(ports)-1]
		}
	}
	if err == nil && metricsPorts == nil {
		// The agents' ports are free ones even with a port base: its
		// blocks of ten are taken up to 65535.
		metricsPorts, err = freePorts(cfg.brokers)
	}
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Join(cfg.stateDir, cfg.name))
	if err != nil {
		return nil, fmt.Errorf("start cluster %q: %w", cfg.name, err)
	}
	c := &Cluster{
		Name: cfg.name, Version: cfg.version, ID: id, Dir: dir,
		Heap: cfg.heap, Java: java, Classpath: dist.Classpath(), StartedAt: time.Now().UTC(),
		log: cfg.log, startTimeout: cfg.startTimeout, stopOnExit: cfg.stopOnExit, Security: cfg.security,
		PortBase: cfg.portBase, Agent: dist.Agent,
	}
	for i := range cfg.brokers {
		nd := filepath.Join(dir, fmt.Sprintf("node-%d", i+1))
		internal, direct, mtls := 0, 0, 0
		if per >= 3 {
			internal = ports[per*i+2]
		}
		switch {
		case cfg.network:
			direct = ports[per*i+3]
		case cfg.mtls:
			mtls = ports[per*i+3]
		}
		c.Brokers = append(c.Brokers, Broker{
			ID: i + 1, Port: ports[per*i], ControllerPort: ports[per*i+1], Host: cfg.host, InternalPort: internal, DirectPort: direct, MTLSPort: mtls, Dir: nd,
			MetricsPort: metricsPorts[i],
			ConfigPath:  filepath.Join(nd, "server.properties"),
			LogPath:     filepath.Join(nd, "server.log"),
			OutPath:     filepath.Join(nd, "server.out"),
		})
	}
	if reg != nil {
		c.Registry = newRegistry(dir, reg, regPort)
	}
	if cfg.tiered {
		c.Tiered = &Tiered{Jar: dist.TieredJar, Dir: filepath.Join(dir, "remote-storage")}
	}
	if cfg.network {
		c.Network = &Network{
			API: loopback(ports[len(ports)-1]), Config: filepath.Join(dir, "proxies.json"), LogPath: filepath.Join(dir, "proxies.log"),
			Command: cfg.proxyCmd, Proxies: layoutProxies(c.Brokers),
		}
	}
	return c, nil
}

func (c *Cluster) writeConfigs(extra map[string]string) error {
	voters := quorumVoters(c.Brokers)
	if c.Tiered != nil {
		if err := os.MkdirAll(c.Tiered.Dir, 0o755); err != nil {
			return fmt.Errorf("make the remote tier's folder: %w", err)
		}
	}
	if c.Network != nil {
		if err := c.writeNetwork(); err != nil {
			return err
		}
	}
	for _, b := range c.Brokers {
		if err := os.MkdirAll(b.Dir, 0o755); err != nil {
			return fmt.Errorf("write broker %d config: %w", b.ID, err)
		}
		merged := c.securedProps(b)
		if merged == nil {
			merged = map[string]string{}
		}
		for k, v := range extra {
			merged[k] = v
		}
		if c.Network != nil {
			for k, v := range c.networkProps(b) {
				merged[k] = v
			}
		}
		if c.Tiered != nil {
			listener := merged["inter.broker.listener.name"]
			if listener == "" {
				listener = "PLAINTEXT"
			}
			for k, v := range c.Tiered.props(listener, len(c.Brokers)) {
				if _, set := extra[k]; !set { // the user's broker configs win
					merged[k] = v
				}
			}
		}
		props := renderProps(brokerProps(b, voters, len(c.Brokers), merged))
		if err := os.WriteFile(b.ConfigPath, props, 0o644); err != nil {
			return fmt.Errorf("write broker %d config: %w", b.ID, err)
		}
		if err := os.WriteFile(log4jPath(b), log4jConfig(b.LogPath), 0o644); err != nil {
			return fmt.Errorf("write broker %d log config: %w", b.ID, err)
		}
	}
	return c.writeAgentConfig()
}

// format runs Kafka's StorageTool for every node at once: each is a JVM
// start of a second or two.
func (c *Cluster) format(ctx context.Context) error {
	errs := make([]error, len(c.Brokers))
	var wg sync.WaitGroup
	for i, b := range c.Brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.formatNode(ctx, b)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *Cluster) formatNode(ctx context.Context, b Broker) error {
	// A short-lived tool: C1 only and a small serial heap start fastest.
	args := []string{"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dlog4j2.configurationFile=" + log4jPath(b)}
	args = append(args, c.hostsArgs(b)...)
	args = append(args, "-cp", c.Classpath,
		"kafka.tools.StorageTool", "format", "-t", c.ID, "-c", b.ConfigPath)
	args = append(args, c.featureArgs()...)
	cmd := exec.CommandContext(ctx, c.Java, append(args, c.scramArgs()...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("format storage of broker %d: %w", b.ID, ctx.Err())
		}
		return fmt.Errorf("format storage of broker %d: %w\n%s\n%s", b.ID, err, tailLines(string(out), 30), nodeTail(b, 30))
	}
	return nil
}

// featureArgs enables, at format time, the features a release has but
// leaves off: share groups (KIP-932) are on by default from Kafka 4.2; 4.1
// has them as a preview behind share.version.
func (c *Cluster) featureArgs() []string {
	if strings.HasPrefix(c.Version, "4.1.") {
		return []string{"--feature", "share.version=1"}
	}
	return nil
}

// unformat handles a start that failed before any broker started: one
// interrupted leaves nothing behind; one whose storage tool failed keeps
// the folder, state saved, for its logs.
func (c *Cluster) unformat(ctx context.Context, cause error) error {
	if ctx.Err() == nil {
		return fmt.Errorf("%w\n(logs kept in %s; 'kbench cluster down --name %s' removes them)", cause, c.Dir, c.Name)
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		return errors.Join(cause, fmt.Errorf("remove the half-made cluster %s: %w", c.Dir, err))
	}
	c.logf("cluster %q: stopped before any broker started; removed %s", c.Name, c.Dir)
	return cause
}

// abort stops the brokers of a failed start, keeping their logs on disk.
func (c *Cluster) abort(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.stopBrokers(ctx, c.ids(), 5*time.Second); err != nil {
		return errors.Join(cause, err)
	}
	if err := c.stopProxies(ctx); err != nil {
		return errors.Join(cause, err)
	}
	if err := c.stopRegistry(ctx); err != nil {
		return errors.Join(cause, err)
	}
	_ = c.save()
	return fmt.Errorf("%w\n(logs kept in %s)", cause, c.Dir)
}

func (c *Cluster) ids() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]int, len(c.Brokers))
	for i, b := range c.Brokers {
		ids[i] = b.ID
	}
	return ids
}
