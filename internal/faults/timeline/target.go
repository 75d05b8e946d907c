package timeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kbench/kbench/internal/faults"
)

// leaderTries bounds the looks for a partition's leader (one per Poll).
const leaderTries = 20

// resolve finds the broker a target means now.
func (t *Timeline) resolve(ctx context.Context, tg faults.Target) (int32, error) {
	switch {
	case tg.Fault != "":
		i := t.index(tg.Fault)
		if i < 0 {
			return -1, fmt.Errorf("no fault named %q", tg.Fault)
		}
		if b := t.get(i).Broker; b >= 0 {
			return b, nil
		}
		return -1, fmt.Errorf("fault %q acted on no broker", tg.Fault)
	case tg.Leader != nil:
		return t.leaderNow(ctx, *tg.Leader)
	case tg.Controller:
		return t.controller(ctx)
	}
	if t.known != nil && !t.known[tg.Broker] {
		// Regression: a remote cluster's kill of broker 99, of 1, ran its
		// command and was reported done.
		ids := make([]int32, 0, len(t.known))
		for id := range t.known {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return -1, fmt.Errorf("broker %d is not one of the cluster's brokers (%v when the faults began): {broker: N} is a node id", tg.Broker, ids)
	}
	return tg.Broker, nil
}

// resolveFault finds the broker a fault acts on now and, for a network
// fault, its link's two ends. The broker is -1 for a link whose first
// end is no single broker (every broker, the clients).
func (t *Timeline) resolveFault(ctx context.Context, f faults.Fault) (int32, *faults.Link, error) {
	if t.cfg.Kinds[f.Action].Effect.Heals && f.Target.Fault != "" {
		// The broker of the fault it heals, if that fault had one.
		if j := t.index(f.Target.Fault); j >= 0 {
			return t.get(j).Broker, nil, nil
		}
	}
	if len(f.Between) != 2 {
		b, err := t.resolve(ctx, f.Target)
		return b, nil, err
	}
	var l faults.Link
	for side, s := range f.Between {
		e := faults.Ends{Brokers: s.Brokers, Controllers: s.Controllers, Clients: s.Clients}
		for _, z := range s.Zones {
			e = e.Union(z.Ends())
		}
		for _, tg := range s.Targets {
			b, err := t.resolve(ctx, tg)
			if err != nil {
				return -1, nil, err
			}
			if !slices.Contains(e.Nodes, b) {
				e.Nodes = append(e.Nodes, b)
			}
		}
		l[side] = e
	}
	if id := faults.SameNode(l[0], l[1]); id >= 0 {
		return id, nil, errSelfLink(id)
	}
	var broker int32 = -1
	if len(l[0].Nodes) == 1 {
		broker = l[0].Nodes[0]
	}
	return broker, &l, nil
}

// leaderNow is p's leader, looked for every Poll while it has none (an
// election under way), at most leaderTries times.
func (t *Timeline) leaderNow(ctx context.Context, p faults.Partition) (int32, error) {
	var lastErr error
	for try := 0; try < leaderTries; try++ {
		leader, err := t.leader(ctx, p)
		if err == nil && leader >= 0 {
			return leader, nil
		}
		lastErr = err
		if !sleep(ctx, t.cfg.Poll) {
			lastErr = ctx.Err()
			break
		}
	}
	if lastErr == nil {
		lastErr = errors.New("it has no leader")
	}
	return -1, fmt.Errorf("find the leader of %s-%d: %w", p.Topic, p.Partition, lastErr)
}

func (t *Timeline) leader(ctx context.Context, p faults.Partition) (int32, error) {
	m, err := t.view.metadata(ctx, p.Topic)
	if err != nil {
		return -1, err
	}
	pd, ok := m.Topics[p.Topic].Partitions[p.Partition]
	if !ok {
		return -1, fmt.Errorf("topic %s has no partition %d", p.Topic, p.Partition)
	}
	return pd.Leader, nil
}

// controller asks the quorum for its leader (KRaft's active controller);
// older brokers that cannot answer give the metadata's controller.
func (t *Timeline) controller(ctx context.Context) (int32, error) {
	if id, err := t.view.quorumLeader(ctx); err == nil && id >= 0 {
		return id, nil
	}
	if ctx.Err() != nil {
		return -1, fmt.Errorf("find the controller: %w", ctx.Err())
	}
	m, err := t.view.metadata(ctx, t.cfg.Topics...)
	if err != nil {
		return -1, fmt.Errorf("find the controller: %w", err)
	}
	return m.Controller, nil
}

// errSelfLink says that a link's two ends are one node.
func errSelfLink(id int32) error {
	return fmt.Errorf("both ends of the link are broker %d: a broker reaches itself without the network; name another broker, brokers, controllers or clients as the other end", id)
}
