package cluster

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Signal sends sig to broker id's process, after checking that its PID
// still runs that broker.
func (c *Cluster) Signal(id int, sig syscall.Signal) error {
	b, ok := c.Broker(id)
	if !ok {
		return fmt.Errorf("cluster %q has no broker %d", c.Name, id)
	}
	if c.state(b) == procGone {
		return fmt.Errorf("broker %d: %w", id, ErrNotRunning)
	}
	b, _ = c.Broker(id) // its PID, if another process runs it now
	return c.signal(b, sig)
}

// ErrNotRunning is returned by the actions that need a running broker.
var ErrNotRunning = errors.New("not running")

// Proc says whether broker id's process runs (found by its recorded PID or
// by its config) and whether it is paused.
func (c *Cluster) Proc(id int) (alive, paused bool) {
	b, ok := c.Broker(id)
	if !ok {
		return false, false
	}
	st := c.state(b)
	return st != procGone, st == procStopped
}

// Kill ends broker id at once (SIGKILL), as a crash or power loss would,
// and waits until its process has gone.
func (c *Cluster) Kill(id int) error {
	if err := c.Signal(id, syscall.SIGKILL); err != nil {
		return err
	}
	b, _ := c.Broker(id)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !c.waitGone(ctx, b) {
		return fmt.Errorf("broker %d (pid %d) still runs 10 s after SIGKILL", id, b.PID)
	}
	return c.updateBroker(id, func(b *Broker) { b.Down = "killed" })
}

// Pause freezes broker id (SIGSTOP): its sockets stay open but it answers
// nothing, as in a long GC pause or a hung disk. It returns once the
// process is stopped (every thread of a JVM takes the signal in turn).
func (c *Cluster) Pause(id int) error { return c.signalAndWait(id, syscall.SIGSTOP, procStopped) }

// Resume continues a paused broker (SIGCONT), and returns once it runs.
func (c *Cluster) Resume(id int) error { return c.signalAndWait(id, syscall.SIGCONT, procRunning) }

// signalAndWait signals broker id and waits, up to 10 s, until its process
// is in state want.
func (c *Cluster) signalAndWait(id int, sig syscall.Signal, want procState) error {
	if err := c.Signal(id, sig); err != nil {
		return err
	}
	b, _ := c.Broker(id)
	deadline := time.Now().Add(10 * time.Second)
	for c.state(b) != want {
		if time.Now().After(deadline) {
			return fmt.Errorf("broker %d (pid %d) did not take %v within 10 s", id, b.PID, sig)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

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
	pid := c.pid(id)
	if err := c.updateBroker(id, func(b *Broker) { b.PID, b.Down = pid, "" }); err != nil {
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
	b, ok := c.Broker(id)
	if !ok {
		return fmt.Errorf("stop: cluster %q has no broker %d", c.Name, id)
	}
	if c.state(b) == procGone {
		return fmt.Errorf("broker %d: %w", id, ErrNotRunning)
	}
	if err := c.stopBrokers(ctx, []int{id}, stopGrace); err != nil {
		return fmt.Errorf("stop broker %d: %w", id, err)
	}
	c.logf("broker %d stopped", id)
	return c.updateBroker(id, func(b *Broker) { b.Down = "stopped" })
}

// Healed is what Heal did to one broker: "resume" or "restart".
type Healed struct {
	ID     int
	Action string
}

// Heal brings every broker back: paused ones are resumed, those not
// running are started again and waited for. A fault timeline calls it at
// the end of a run, so that nothing stays broken for the next. On a
// network-faults cluster it first starts the proxy process again if it is
// gone, and last clears every network fault (Link); the result lists
// brokers only.
func (c *Cluster) Heal(ctx context.Context) ([]Healed, error) {
	var done []Healed
	var errs []error
	started := false // the proxies, just now: they carry no fault
	if c.network() != nil && c.proxyState() == procGone {
		if err := c.startProxies(ctx); err != nil {
			errs = append(errs, err)
		}
		started = true
	}
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
	if !started {
		if err := c.healNetwork(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return done, errors.Join(errs...)
}
