package workload

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// groupTracker follows one client's group membership through franz-go's
// rebalance callbacks, which run on the client's group goroutine, never in
// the poll loop; a mutex is fine here.
//
// Rebalance time follows the Apache tool's listener: a consumer is waiting
// from its start, and again whenever it has lost every partition, until its
// next assignment. A consumer that keeps some partitions through a
// (cooperative) rebalance goes on consuming and is not waiting.
type groupTracker struct {
	cr *ConsumerRun

	mu         sync.Mutex
	partitions int
	owned      map[topicPartition]bool // assigned now
	waiting    bool
	waitStart  time.Time
	joined     time.Duration // in total
	newJoined  time.Duration // since the reporter last took it
	first      bool
	firstGen   int32 // generation of the first assignment
	maxGen     int32
}

func newGroupTracker(r *ConsumerRun, start time.Time) *groupTracker {
	return &groupTracker{cr: r, waiting: true, waitStart: start, firstGen: -1, maxGen: -1, owned: map[topicPartition]bool{}}
}

func (g *groupTracker) onAssigned(_ context.Context, cl *kgo.Client, assigned map[string][]int32) {
	now := time.Now()
	_, gen := cl.GroupMetadata()
	g.mu.Lock()
	if g.waiting {
		d := now.Sub(g.waitStart)
		g.joined += d
		g.newJoined += d
		g.waiting = false
	}
	g.partitions += count(assigned)
	for t, ps := range assigned {
		for _, p := range ps {
			g.owned[topicPartition{t, p}] = true
		}
	}
	g.maxGen = max(g.maxGen, gen)
	first := !g.first
	if first {
		g.first, g.firstGen = true, gen
	}
	g.mu.Unlock()
	if first {
		g.cr.assigned()
	}
}

func (g *groupTracker) onRevoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	// Replacing franz-go's default revoke callback drops its commit, so
	// commit here as it would: the next owner starts where this one ended.
	if disabled, _ := cl.OptValue(kgo.DisableAutoCommit).(bool); !disabled {
		_ = cl.CommitUncommittedOffsets(ctx) // as franz-go's default: best effort
	}
	g.lose(cl, revoked)
}

func (g *groupTracker) onLost(_ context.Context, cl *kgo.Client, lost map[string][]int32) {
	g.lose(cl, lost)
}

func (g *groupTracker) lose(cl *kgo.Client, lost map[string][]int32) {
	now := time.Now()
	_, gen := cl.GroupMetadata()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.partitions = max(g.partitions-count(lost), 0)
	for t, ps := range lost {
		for _, p := range ps {
			delete(g.owned, topicPartition{t, p})
		}
	}
	g.maxGen = max(g.maxGen, gen)
	if g.partitions == 0 && !g.waiting {
		g.waiting, g.waitStart = true, now
	}
}

// ownedInto adds the partitions the client is assigned now to out.
func (g *groupTracker) ownedInto(out map[topicPartition]bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for tp := range g.owned {
		out[tp] = true
	}
}

// takeJoined returns the rebalance time since the last call.
func (g *groupTracker) takeJoined() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.newJoined
	g.newJoined = 0
	return d
}

// state returns the total rebalance time and the generations seen.
func (g *groupTracker) state(cl *kgo.Client) (joined time.Duration, firstGen, maxGen int32) {
	_, gen := cl.GroupMetadata()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.joined, g.firstGen, max(g.maxGen, gen)
}

func count(m map[string][]int32) int {
	n := 0
	for _, ps := range m {
		n += len(ps)
	}
	return n
}
