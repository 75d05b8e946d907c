package cluster

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// waitReady polls each broker in ids until every one of them answers
// metadata listing all of ids, or one exits, or timeout passes. A broker
// listed in metadata is registered and unfenced: it has caught up with the
// controller and takes requests.
func (c *Cluster) waitReady(ctx context.Context, timeout time.Duration, ids []int) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	probes := make(map[int]*probe, len(ids))
	for _, id := range ids {
		b, _ := c.Broker(id)
		p, err := newProbe(b.ProbeAddr(), c.probeOpts()...)
		if err != nil {
			return err
		}
		defer p.close()
		probes[id] = p
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	ready := map[int]bool{}
	lastErr := map[int]error{}
	for {
		for _, id := range ids {
			if ready[id] {
				continue
			}
			rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
			seen, err := probes[id].brokers(rctx)
			rcancel()
			switch {
			case err != nil:
				lastErr[id] = err
			case missing(ids, seen) == 0:
				ready[id] = true
			default:
				lastErr[id] = fmt.Errorf("it sees brokers %v", keys(seen))
			}
		}
		if len(ready) == len(ids) {
			return nil
		}
		if err := c.checkAlive(ids); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return c.notReady(timeout, ids, ready, lastErr)
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func missing(ids []int, seen map[int]bool) int {
	n := 0
	for _, id := range ids {
		if !seen[id] {
			n++
		}
	}
	return n
}

func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// checkAlive fails when one of the brokers being waited for has exited.
func (c *Cluster) checkAlive(ids []int) error {
	for _, id := range ids {
		b, _ := c.Broker(id)
		if c.state(b) != procGone {
			continue
		}
		tail := nodeTail(b, 30)
		err := fmt.Errorf("broker %d (pid %d) exited during start-up", id, b.PID)
		if ch := c.child(id); ch != nil && ch.exited() && ch.err != nil {
			err = fmt.Errorf("%w: %v", err, ch.err)
		}
		if strings.Contains(tail, "Address already in use") {
			err = fmt.Errorf("%w: %w", err, errPortInUse)
		}
		return fmt.Errorf("%w\n%s", err, tail)
	}
	return nil
}

func (c *Cluster) notReady(timeout time.Duration, ids []int, ready map[int]bool, lastErr map[int]error) error {
	for _, id := range ids {
		if ready[id] {
			continue
		}
		b, _ := c.Broker(id)
		// The broker's own last word first, in one line: regression: the
		// cause (a broker still waiting to be unfenced) was buried under
		// 30 lines of its configuration.
		state := "its log says nothing of its state"
		if l := lastStateLine(tailFile(b.LogPath, 2000)); l != "" {
			state = fmt.Sprintf("its log's last state: %q", l)
		}
		return fmt.Errorf("brokers not ready after %s: %d of %d ready; broker %d not ready: %s (last probe: %v); a loaded machine may need longer: raise the bound (cluster up --timeout, a plan's cluster.local.timeout); its log: %s",
			timeout, len(ready), len(ids), id, state, lastErr[id], b.LogPath)
	}
	return fmt.Errorf("brokers not ready after %s", timeout)
}

// waitCoordinators waits until a consumer group coordinator and a
// transaction coordinator answer: a cluster is ready when consumers can join
// and transactions can start, not only when producers can send. Creating the
// internal topics behind them takes seconds that would otherwise land in the
// first consumer's rebalance time or the first transaction's commit.
func (c *Cluster) waitCoordinators(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p, err := newProbe(c.Brokers[0].ProbeAddr(), c.probeOpts()...)
	if err != nil {
		return err
	}
	defer p.close()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for _, typ := range []int8{groupCoordinator, txnCoordinator} {
		for {
			rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
			err := p.coordinator(rctx, typ)
			rcancel()
			if err == nil {
				break
			}
			if aerr := c.checkAlive(c.ids()); aerr != nil {
				return aerr
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("no %s coordinator after %s (last answer: %v):\n%s",
					map[int8]string{groupCoordinator: "consumer group", txnCoordinator: "transaction"}[typ],
					timeout, err, nodeTail(c.Brokers[0], 30))
			case <-tick.C:
			}
		}
	}
	return nil
}

// stateLineRE matches what a Kafka broker logs of its life cycle: its
// state transitions, fencing, the controller quorum and the catch-up
// before it serves.
var stateLineRE = regexp.MustCompile(`(?i)BrokerLifecycleManager|BrokerServer|broker state|transition|fenced|unfenced|recovery|catching up|caught up|waiting for|quorum|leader is|RaftManager|KafkaRaftServer`)

// lastStateLine is the message of the last line of a broker's log that
// says where its start-up is ("" when none does), without the log4j
// timestamp and class prefix.
func lastStateLine(log string) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if !strings.HasPrefix(l, "[") || !stateLineRE.MatchString(l) {
			continue // the configuration Kafka prints is indented: not a state
		}
		if j := strings.Index(l, "] "); j >= 0 {
			l = l[j+2:] // "[2026-12-05 10:00:00,123] INFO " ...
		}
		l = strings.TrimSpace(l)
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		return l
	}
	return ""
}
