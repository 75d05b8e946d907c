package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// proxyStartTimeout bounds the wait for the proxy process's API to list
// every proxy: a Go process binding a few dozen sockets, well under a
// second on an idle machine.
const proxyStartTimeout = 20 * time.Second

// writeNetwork writes the proxy process's config and each node's hosts
// file.
func (c *Cluster) writeNetwork() error {
	n := c.Network
	raw, err := json.MarshalIndent(proxyConfig{API: n.API, Proxies: n.Proxies}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("write network proxies config: %w", err)
	}
	if err := os.WriteFile(n.Config, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write network proxies config: %w", err)
	}
	host, _ := os.Hostname()
	ids := c.ids()
	for _, b := range c.Brokers {
		if err := os.MkdirAll(b.Dir, 0o755); err != nil {
			return fmt.Errorf("write broker %d hosts file: %w", b.ID, err)
		}
		if err := os.WriteFile(hostsPath(b), hostsFile(b.ID, ids, host), 0o644); err != nil {
			return fmt.Errorf("write broker %d hosts file: %w", b.ID, err)
		}
	}
	return nil
}

// network returns a copy of the cluster's network state (nil without).
func (c *Cluster) network() *Network {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Network == nil {
		return nil
	}
	n := *c.Network
	return &n
}

// startProxies starts the proxy process detached, as a broker is, and
// waits until its API lists every proxy.
func (c *Cluster) startProxies(ctx context.Context) error {
	n := c.network()
	if len(n.Command) == 0 {
		return errors.New("start the network proxies: no command to run them with")
	}
	out, err := os.OpenFile(n.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start the network proxies: %w", err)
	}
	defer out.Close()
	fmt.Fprintf(out, "=== kbench: starting the network proxies at %s\n", time.Now().Format(time.RFC3339))
	argv := append(append([]string(nil), n.Command...), n.Config)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr(c.stopOnExit)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the network proxies (%s): %w", argv[0], err)
	}
	ch := &child{proc: cmd.Process, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	c.mu.Lock()
	c.proxies = ch
	c.mu.Unlock()
	if err := c.updateNetwork(func(n *Network) { n.PID, n.Down = cmd.Process.Pid, "" }); err != nil {
		return err
	}
	if err := c.waitProxies(ctx, ch, len(n.Proxies)); err != nil {
		_ = ch.proc.Kill()
		<-ch.done
		return err
	}
	c.logf("network proxies up: %d paths, pid %d, API on %s", len(n.Proxies), cmd.Process.Pid, n.API)
	return nil
}

// waitProxies polls the proxy process's API until it lists want proxies.
func (c *Cluster) waitProxies(ctx context.Context, ch *child, want int) error {
	n := c.network()
	ctx, cancel := context.WithTimeout(ctx, proxyStartTimeout)
	defer cancel()
	cl := toxiclient.NewClient(n.API)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if ch.exited() {
			tail := tailFile(n.LogPath, 20)
			err := fmt.Errorf("the network proxies exited while starting: %v\n%s", ch.err, tail)
			if strings.Contains(tail, "address already in use") {
				err = fmt.Errorf("%w: %w", err, errPortInUse)
			}
			return err
		}
		ps, err := cl.Proxies()
		if err == nil && len(ps) == want {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("%d of %d proxies listed", len(ps), want)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("the network proxies did not answer within %s (%v):\n%s", proxyStartTimeout, last, tailFile(n.LogPath, 20))
		case <-tick.C:
		}
	}
}

// proxyState is whether the proxy process runs: the wait status for a
// process this one started, else its PID still running its config.
func (c *Cluster) proxyState() procState {
	c.mu.Lock()
	n, ch := c.Network, c.proxies
	c.mu.Unlock()
	if n == nil {
		return procGone
	}
	if ch != nil && ch.proc.Pid == n.PID && ch.exited() {
		return procGone
	}
	return inspect(n.PID, n.Config)
}

// stopProxies ends the proxy process: SIGTERM, SIGKILL after 10 s.
func (c *Cluster) stopProxies(ctx context.Context) error {
	n := c.network()
	if n == nil || c.proxyState() == procGone {
		return nil
	}
	b := Broker{ID: 0, PID: n.PID, ConfigPath: n.Config}
	_ = signal(b, syscall.SIGTERM)
	_ = signal(b, syscall.SIGCONT)
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if c.waitProxiesGone(gctx) {
		return c.updateNetwork(func(n *Network) { n.Down = "stopped" })
	}
	_ = signal(b, syscall.SIGKILL)
	kctx, kcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer kcancel()
	if !c.waitProxiesGone(kctx) {
		return fmt.Errorf("the network proxies (pid %d) still run after SIGKILL", n.PID)
	}
	return c.updateNetwork(func(n *Network) { n.Down = "stopped" })
}

func (c *Cluster) waitProxiesGone(ctx context.Context) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for c.proxyState() != procGone {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// updateNetwork changes the network state in memory and, under the
// state's lock, on disk, as updateBroker does for a broker.
func (c *Cluster) updateNetwork(fn func(n *Network)) error {
	c.mu.Lock()
	if c.Network != nil {
		fn(c.Network)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	path := filepath.Join(c.Dir, stateFile)
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	defer unlock()
	disk, err := readState(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	if disk.Network != nil {
		fn(disk.Network)
	}
	return disk.write(path)
}

// NetworkStatus is a network-faults cluster's proxies, as NetworkStatus
// found them.
type NetworkStatus struct {
	Network
	Alive   bool // the proxy process runs
	Answers bool // its API answered within 2 s
	Paths   []PathStatus
}

// PathStatus is one proxy and its faults.
type PathStatus struct {
	Proxy
	Cut    bool     // the proxy refuses connections (Link.Cut)
	Faults []string // "delay 20ms ±5ms", "loss 1% (200ms)", "bandwidth 1000 KB/s"
}

// Describe is the path's faults for a table: "none", "cut", "delay 20ms".
func (p PathStatus) Describe() string { return joinFaults(!p.Cut, p.Faults) }

// NetworkStatus asks the proxy process for every proxy and its faults; nil
// on a cluster without network faults.
func (c *Cluster) NetworkStatus(ctx context.Context) (*NetworkStatus, error) {
	n := c.network()
	if n == nil {
		return nil, nil
	}
	st := &NetworkStatus{Network: *n, Alive: c.proxyState() != procGone}
	for _, p := range n.Proxies {
		st.Paths = append(st.Paths, PathStatus{Proxy: p})
	}
	if !st.Alive {
		return st, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var listed map[string]*toxiclient.Proxy
	err := c.proxyAPI(ctx, func(cl *toxiclient.Client) error {
		var err error
		listed, err = cl.Proxies()
		return err
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return st, fmt.Errorf("network status of cluster %q: %w", c.Name, err)
		}
		return st, nil
	}
	st.Answers = true
	for i, p := range st.Paths {
		if lp, ok := listed[p.Name]; ok {
			st.Paths[i].Cut = !lp.Enabled
			st.Paths[i].Faults = describeToxics(lp.ActiveToxics)
		}
	}
	return st, nil
}

// healNetwork clears every fault on the proxies (Toxiproxy's reset: every
// proxy enabled, every toxic removed).
func (c *Cluster) healNetwork(ctx context.Context) error {
	if c.network() == nil {
		return nil
	}
	var faulty int
	err := c.proxyAPI(ctx, func(cl *toxiclient.Client) error {
		ps, err := cl.Proxies()
		if err != nil {
			return err
		}
		for _, p := range ps {
			if !p.Enabled || len(p.ActiveToxics) > 0 {
				faulty++
			}
		}
		if faulty == 0 {
			return nil
		}
		return cl.ResetState()
	})
	if err != nil {
		return fmt.Errorf("clear the network faults: %w", err)
	}
	if faulty > 0 {
		c.logf("cleared the network faults of %d path(s)", faulty)
	}
	return nil
}

// proxyAPI calls fn with a client of the proxy process's API, returning
// when ctx ends even if the call does not (Toxiproxy's client takes no
// context; its own bound is 30 s).
func (c *Cluster) proxyAPI(ctx context.Context, fn func(cl *toxiclient.Client) error) error {
	n := c.network()
	if n == nil {
		return ErrNoNetwork
	}
	if c.proxyState() == procGone {
		return fmt.Errorf("the network proxies of cluster %q are not running (bring them back with: kbench cluster up --name %s)", c.Name, c.Name)
	}
	done := make(chan error, 1)
	go func() { done <- fn(toxiclient.NewClient(n.API)) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// describeToxics says what faults a proxy carries, once per kind whatever
// the streams: "delay 20ms ±5ms", "loss 1% (200ms)", "bandwidth 1000 KB/s".
func describeToxics(ts toxiclient.Toxics) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range ts {
		num := func(k string) float64 { f, _ := t.Attributes[k].(float64); return f }
		var d string
		switch t.Type {
		case "latency":
			d = fmt.Sprintf("delay %gms", num("latency"))
			if j := num("jitter"); j > 0 {
				d += fmt.Sprintf(" ±%gms", j)
			}
		case lossToxicType:
			d = fmt.Sprintf("loss %g%% (%gms)", num("share")*100, num("retransmit"))
		case "bandwidth":
			d = fmt.Sprintf("bandwidth %g KB/s", num("rate"))
		default:
			d = t.Type
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// joinFaults is a proxy's faults for a table cell.
func joinFaults(enabled bool, faults []string) string {
	if !enabled {
		faults = append([]string{"cut"}, faults...)
	}
	if len(faults) == 0 {
		return "none"
	}
	return strings.Join(faults, ", ")
}
