package consume

import (
	"context"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/workload/engine"
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
	cr     *ConsumerRun
	client int

	mu         sync.Mutex
	partitions int
	owned      map[engine.TopicPartition]bool // assigned now
	waiting    bool
	waitStart  time.Time
	joined     time.Duration // in total
	newJoined  time.Duration // since the reporter last took it
	first      bool
	firstGen   int32 // generation of the first assignment
	maxGen     int32
	// changes are the client's membership and assignment changes, from
	// its joining (start) on, at most maxChanges.
	changes []GroupChange
}

// GroupChange is one change of a group member's membership or partitions:
// it joined (started), was assigned partitions, had partitions revoked
// or lost, or left (its workload stopped; it closes, sending its leave,
// right after).
type GroupChange struct {
	At     time.Time
	Client int
	Event  string // joined, assigned, revoked, lost, left
	// Partitions are the partitions the event moved (0 for joined, left).
	Partitions int
}

// maxChanges bounds a client's change log: a group that rebalances every
// few seconds for hours would otherwise grow it without end.
const maxChanges = 1000

func newGroupTracker(r *ConsumerRun, client int, start time.Time) *groupTracker {
	g := &groupTracker{cr: r, client: client, waiting: true, waitStart: start, firstGen: -1, maxGen: -1, owned: map[engine.TopicPartition]bool{}}
	g.note(start, "joined", 0)
	return g
}

// note logs a change (g.mu held, or before the tracker is shared).
func (g *groupTracker) note(at time.Time, event string, partitions int) {
	if len(g.changes) < maxChanges {
		g.changes = append(g.changes, GroupChange{At: at, Client: g.client, Event: event, Partitions: partitions})
	}
}

// left logs the client's leaving and returns its change log.
func (g *groupTracker) left(at time.Time) []GroupChange {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.note(at, "left", 0)
	return append([]GroupChange(nil), g.changes...)
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
	if n := count(assigned); n > 0 { // KIP-848 members are called with none too
		g.note(now, "assigned", n)
	}
	for t, ps := range assigned {
		for _, p := range ps {
			g.owned[engine.TopicPartition{Topic: t, Partition: p}] = true
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
	g.lose(cl, "revoked", revoked)
}

func (g *groupTracker) onLost(_ context.Context, cl *kgo.Client, lost map[string][]int32) {
	g.lose(cl, "lost", lost)
}

func (g *groupTracker) lose(cl *kgo.Client, event string, lost map[string][]int32) {
	now := time.Now()
	_, gen := cl.GroupMetadata()
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := count(lost); n > 0 {
		g.note(now, event, n)
	}
	g.partitions = max(g.partitions-count(lost), 0)
	for t, ps := range lost {
		for _, p := range ps {
			delete(g.owned, engine.TopicPartition{Topic: t, Partition: p})
		}
	}
	g.maxGen = max(g.maxGen, gen)
	if g.partitions == 0 && !g.waiting {
		g.waiting, g.waitStart = true, now
	}
}

// ownedInto adds the partitions the client is assigned now to out.
func (g *groupTracker) ownedInto(out map[engine.TopicPartition]bool) {
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
