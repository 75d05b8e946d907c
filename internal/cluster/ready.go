package cluster

import (
	"context"
	"errors"
	"fmt"
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
		p, err := newProbe(b.Addr())
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
		return fmt.Errorf("brokers not ready after %s: %d of %d ready; broker %d not ready (%v):\n%s",
			timeout, len(ready), len(ids), id, lastErr[id], nodeTail(b, 30))
	}
	return fmt.Errorf("brokers not ready after %s", timeout)
}
