package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// stopGrace is how long a broker gets to shut down cleanly after SIGTERM
// before it is killed.
const stopGrace = 30 * time.Second

// Stop stops every broker (SIGTERM, then SIGKILL after 30s or when ctx is
// done) and removes the cluster's directory unless keep. Brokers already
// gone are skipped; a PID now running something else is never signalled.
func (c *Cluster) Stop(ctx context.Context, keep bool) error {
	c.logf("stopping cluster %q", c.Name)
	if err := c.stopBrokers(ctx, c.ids(), stopGrace); err != nil {
		return fmt.Errorf("stop cluster %q: %w", c.Name, err)
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
