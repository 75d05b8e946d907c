package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// stopGrace is how long a broker gets to shut down cleanly after SIGTERM
// before it is killed.
const stopGrace = 30 * time.Second

// Stop stops every broker (SIGTERM, then SIGKILL after 30s or when ctx is
// done), and every other process that runs one of its nodes' configs (a
// broker restarted by hand or by another kbench), then the network
// proxies of a network-faults cluster, then removes the
// cluster's directory unless keep. Brokers already gone are skipped; a PID
// now running something else is never signalled. The directory is kept
// while any process of the cluster still runs: deleting the data under a
// live broker would leave it running on nothing.
func (c *Cluster) Stop(ctx context.Context, keep bool) error {
	c.logf("stopping cluster %q", c.Name)
	if err := c.stopRegistry(ctx); err != nil {
		return fmt.Errorf("stop cluster %q: %w (data kept in %s)", c.Name, err, c.Dir)
	}
	if err := c.stopBrokers(ctx, c.ids(), stopGrace); err != nil {
		return fmt.Errorf("stop cluster %q: %w (data kept in %s)", c.Name, err, c.Dir)
	}
	if strays := c.strays(); len(strays) > 0 {
		if err := c.stopStrays(ctx, strays); err != nil {
			return fmt.Errorf("stop cluster %q: %w (data kept in %s)", c.Name, err, c.Dir)
		}
	}
	// After the brokers: a broker shutting down cleanly talks to the
	// controller through them.
	if err := c.stopProxies(ctx); err != nil {
		return fmt.Errorf("stop cluster %q: %w (data kept in %s)", c.Name, err, c.Dir)
	}
	if keep {
		c.logf("kept %s", c.Dir)
		return nil
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		return fmt.Errorf("stop cluster %q: remove %s: %w", c.Name, c.Dir, err)
	}
	return nil
}

// stopBrokers terminates brokers together, so a 3-node cluster stops in the
// time of one, and kills those still running after grace.
func (c *Cluster) stopBrokers(ctx context.Context, ids []int, grace time.Duration) error {
	var running []Broker
	for _, id := range ids {
		b, ok := c.Broker(id)
		if !ok || c.state(b) == procGone {
			continue
		}
		b, _ = c.Broker(id) // its PID, if another process runs it now
		running = append(running, b)
		_ = c.signal(b, syscall.SIGTERM)
		_ = c.signal(b, syscall.SIGCONT) // a paused broker must run to exit
	}
	gctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	var left []Broker
	for _, b := range running {
		if !c.waitGone(gctx, b) {
			left = append(left, b)
		}
	}
	// Killing must finish even when ctx is done: Ctrl-C during Stop means
	// "faster", not "leave brokers running".
	kctx, kcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer kcancel()
	var errs []error
	for _, b := range left {
		c.logf("broker %d (pid %d) did not stop in %s; killing it", b.ID, b.PID, grace)
		_ = c.signal(b, syscall.SIGKILL)
		if !c.waitGone(kctx, b) {
			errs = append(errs, fmt.Errorf("broker %d (pid %d) still runs after SIGKILL", b.ID, b.PID))
		}
	}
	return errors.Join(errs...)
}

// strays are the processes still running a node's config after its
// brokers were stopped: each as a Broker with that PID.
func (c *Cluster) strays() []Broker {
	c.mu.Lock()
	brokers := append([]Broker(nil), c.Brokers...)
	c.mu.Unlock()
	configs := make([]string, len(brokers))
	for i, b := range brokers {
		configs[i] = b.ConfigPath
	}
	found := findBrokers(configs...)
	var out []Broker
	for _, b := range brokers {
		for _, p := range found[filepath.Clean(b.ConfigPath)] {
			s := b
			s.PID = p.pid
			out = append(out, s)
		}
	}
	return out
}

// stopStrays terminates processes not started by this process, checking
// each PID again before every signal.
func (c *Cluster) stopStrays(ctx context.Context, strays []Broker) error {
	for _, b := range strays {
		c.logf("broker %d also runs as pid %d; stopping it", b.ID, b.PID)
		_ = signal(b, syscall.SIGTERM)
		_ = signal(b, syscall.SIGCONT)
	}
	gctx, cancel := context.WithTimeout(ctx, stopGrace)
	defer cancel()
	var errs []error
	for _, b := range strays {
		if waitInspect(gctx, b) {
			continue
		}
		_ = signal(b, syscall.SIGKILL)
		kctx, kcancel := context.WithTimeout(context.Background(), 10*time.Second)
		if !waitInspect(kctx, b) {
			errs = append(errs, fmt.Errorf("broker %d (pid %d) still runs after SIGKILL", b.ID, b.PID))
		}
		kcancel()
	}
	return errors.Join(errs...)
}

// waitInspect polls until pid b.PID no longer runs b's config.
func waitInspect(ctx context.Context, b Broker) bool {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for inspect(b.PID, b.ConfigPath) != procGone {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}
