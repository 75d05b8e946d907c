package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BrokerStatus is one broker as Status found it.
type BrokerStatus struct {
	Broker
	Alive   bool // its process runs (perhaps paused)
	Paused  bool // its process is stopped by SIGSTOP
	Answers bool // it answered a metadata request within 2s
}

// State is a one-word summary: up, paused, unresponsive, killed or stopped
// (by kbench: `cluster kill|stop`, a plan's fault), or dead (on its own).
func (s BrokerStatus) State() string {
	switch {
	case !s.Alive && s.Down != "":
		return s.Down
	case !s.Alive:
		return "dead"
	case s.Paused:
		return "paused"
	case !s.Answers:
		return "unresponsive"
	}
	return "up"
}

// Status checks every broker's process and asks each one, directly, for
// metadata. It returns one entry per broker, in node id order.
func (c *Cluster) Status(ctx context.Context) ([]BrokerStatus, error) {
	ids := c.ids()
	out := make([]BrokerStatus, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		b, _ := c.Broker(id)
		st := c.state(b)
		b, _ = c.Broker(id) // its PID, if another process runs it now
		out[i] = BrokerStatus{Broker: b, Alive: st != procGone, Paused: st == procStopped}
		if st != procRunning {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].Answers = answers(ctx, b.ProbeAddr(), c.probeOpts()...) == nil
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("status of cluster %q: %w", c.Name, err)
	}
	return out, nil
}

// answers sends one metadata request to the broker at addr itself.
func answers(ctx context.Context, addr string, opts ...kgo.Opt) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	p, err := newProbe(addr, opts...)
	if err != nil {
		return err
	}
	defer p.close()
	_, err = p.brokers(ctx)
	return err
}
