package cluster

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// Signal sends sig to broker id's process, after checking that its PID
// still runs that broker.
func (c *Cluster) Signal(id int, sig syscall.Signal) error {
	b, ok := c.Broker(id)
	if !ok {
		return fmt.Errorf("cluster %q has no broker %d", c.Name, id)
	}
	return c.signal(b, sig)
}

// Kill ends broker id at once (SIGKILL), as a crash or power loss would.
func (c *Cluster) Kill(id int) error { return c.Signal(id, syscall.SIGKILL) }

// Pause freezes broker id (SIGSTOP): its sockets stay open but it answers
// nothing, as in a long GC pause or a hung disk.
func (c *Cluster) Pause(id int) error { return c.Signal(id, syscall.SIGSTOP) }

// Resume continues a paused broker (SIGCONT).
func (c *Cluster) Resume(id int) error { return c.Signal(id, syscall.SIGCONT) }

// Restart stops broker id if it runs (SIGTERM, SIGKILL after 30s), starts
// it again with the same config and data, and waits until metadata lists it.
func (c *Cluster) Restart(ctx context.Context, id int) error {
	if _, ok := c.Broker(id); !ok {
		return fmt.Errorf("restart: cluster %q has no broker %d", c.Name, id)
	}
	if err := c.stopBrokers(ctx, []int{id}, stopGrace); err != nil {
		return fmt.Errorf("restart broker %d: %w", id, err)
	}
	if err := c.launch(id); err != nil {
		return fmt.Errorf("restart broker %d: %w", id, err)
	}
	if err := c.save(); err != nil {
		return fmt.Errorf("restart broker %d: %w", id, err)
	}
	if err := c.waitReady(ctx, c.timeout(), []int{id}); err != nil {
		return fmt.Errorf("restart broker %d: %w", id, err)
	}
	c.logf("broker %d restarted (pid %d)", id, c.pid(id))
	return nil
}

func (c *Cluster) pid(id int) int {
	b, _ := c.Broker(id)
	return b.PID
}

// StopBroker shuts broker id down cleanly (SIGTERM: its partitions' leaders
// move first; SIGKILL after 30 s) and waits until it has exited.
func (c *Cluster) StopBroker(ctx context.Context, id int) error {
	if _, ok := c.Broker(id); !ok {
		return fmt.Errorf("stop: cluster %q has no broker %d", c.Name, id)
	}
	if err := c.stopBrokers(ctx, []int{id}, stopGrace); err != nil {
		return fmt.Errorf("stop broker %d: %w", id, err)
	}
	c.logf("broker %d stopped", id)
	return nil
}

// Healed is what Heal did to one broker: "resume" or "restart".
type Healed struct {
	ID     int
	Action string
}

// Heal brings every broker back: paused ones are resumed, those not
// running are started again and waited for. A fault timeline calls it at
// the end of a run, so that nothing stays broken for the next.
func (c *Cluster) Heal(ctx context.Context) ([]Healed, error) {
	var done []Healed
	var errs []error
	for _, id := range c.ids() {
		b, _ := c.Broker(id)
		switch c.state(b) {
		case procStopped:
			if err := c.Resume(id); err != nil {
				errs = append(errs, err)
				continue
			}
			done = append(done, Healed{ID: id, Action: "resume"})
		case procGone:
			if err := c.Restart(ctx, id); err != nil {
				errs = append(errs, err)
				continue
			}
			done = append(done, Healed{ID: id, Action: "restart"})
		}
	}
	return done, errors.Join(errs...)
}
