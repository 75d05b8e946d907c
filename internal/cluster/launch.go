package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// child is a broker process started by this process. Waiting for it reaps
// it, so a killed broker does not linger as a zombie that looks alive.
type child struct {
	proc *os.Process
	done chan struct{}
	err  error // the exit status, set before done is closed
}

func (ch *child) exited() bool {
	select {
	case <-ch.done:
		return true
	default:
		return false
	}
}

func log4jPath(b Broker) string { return filepath.Join(b.Dir, "log4j2.properties") }

// command is the broker's command line. It ends with the config file, which
// is how inspect recognises the process later.
func (c *Cluster) command(b Broker) []string {
	args := []string{c.Java,
		"-Xms" + c.Heap, "-Xmx" + c.Heap, "-XX:+UseG1GC", "-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + log4jPath(b)}
	args = append(args, c.hostsArgs(b)...)
	args = append(args, c.agentArgs(b)...)
	return append(args, "-cp", c.Classpath, "kafka.Kafka", b.ConfigPath)
}

// hostsArgs make a network-faults node's JVM resolve names from its own
// hosts file only (JDK 9 and newer).
func (c *Cluster) hostsArgs(b Broker) []string {
	if c.Network == nil {
		return nil
	}
	return []string{"-Djdk.net.hosts.file=" + hostsPath(b)}
}

// launch starts broker id detached, with stdout and stderr appended to its
// out file, and records its PID.
func (c *Cluster) launch(id int) error {
	c.mu.Lock()
	i := c.index(id)
	if i < 0 {
		c.mu.Unlock()
		return fmt.Errorf("no broker %d in cluster %q", id, c.Name)
	}
	b := c.Brokers[i]
	c.mu.Unlock()

	out, err := os.OpenFile(b.OutPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start broker %d: %w", id, err)
	}
	defer out.Close() // the child holds its own copy
	fmt.Fprintf(out, "=== kbench: starting broker %d at %s\n", id, time.Now().Format(time.RFC3339))
	args := c.command(b)
	// Not CommandContext: the broker must outlive the context that started it.
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = b.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr(c.stopOnExit)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start broker %d: %w", id, err)
	}
	ch := &child{proc: cmd.Process, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	c.mu.Lock()
	c.Brokers[i].PID, c.Brokers[i].Down = cmd.Process.Pid, ""
	if c.children == nil {
		c.children = map[int]*child{}
	}
	c.children[id] = ch
	c.mu.Unlock()
	return nil
}

func (c *Cluster) child(id int) *child {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.children[id]
}

// state is inspect, except that for brokers this process started the wait
// status decides whether they run: /proc may show an empty command line
// for a moment right after exec, and a child's PID cannot be reused before
// it is reaped. A broker whose recorded PID is gone but whose config
// another process runs (restarted by hand, or by a kbench whose state was
// written over) is that process: its PID is adopted and saved.
func (c *Cluster) state(b Broker) procState {
	ch := c.child(b.ID)
	if ch != nil && ch.proc.Pid == b.PID {
		if ch.exited() {
			return procGone
		}
		if inspect(b.PID, b.ConfigPath) == procStopped {
			return procStopped
		}
		return procRunning
	}
	if st := inspect(b.PID, b.ConfigPath); st != procGone {
		return st
	}
	found := findBrokers(b.ConfigPath)[filepath.Clean(b.ConfigPath)]
	if len(found) == 0 {
		return procGone
	}
	if err := c.updateBroker(b.ID, func(nb *Broker) { nb.PID, nb.Down = found[0].pid, "" }); err != nil {
		c.logf("broker %d runs as pid %d: %v", b.ID, found[0].pid, err)
	}
	return found[0].state
}

// signal sends sig to broker b if it still runs.
func (c *Cluster) signal(b Broker, sig syscall.Signal) error {
	ch := c.child(b.ID)
	if ch == nil || ch.proc.Pid != b.PID {
		return signal(b, sig)
	}
	if err := ch.proc.Signal(sig); err != nil {
		return fmt.Errorf("signal broker %d (pid %d) with %v: %w", b.ID, b.PID, sig, err)
	}
	return nil
}

// waitGone polls until broker b's process is gone or ctx is done.
func (c *Cluster) waitGone(ctx context.Context, b Broker) bool {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for c.state(b) != procGone {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}
