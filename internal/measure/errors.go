package measure

import (
	"sort"
	"sync"
)

// ErrorCounts counts failures by kind (a Kafka error name such as
// NOT_LEADER_OR_FOLLOWER, or a client-side cause). Errors are off the hot
// path, so a mutex is fine here.
type ErrorCounts struct {
	mu     sync.Mutex
	counts map[string]int64
	total  int64
}

// Add counts one failure of the given kind.
func (e *ErrorCounts) Add(kind string) {
	e.mu.Lock()
	if e.counts == nil {
		e.counts = make(map[string]int64)
	}
	e.counts[kind]++
	e.total++
	e.mu.Unlock()
}

// Total is the number of failures of every kind.
func (e *ErrorCounts) Total() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.total
}

// Snapshot returns a copy of the counts by kind.
func (e *ErrorCounts) Snapshot() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int64, len(e.counts))
	for k, v := range e.counts {
		out[k] = v
	}
	return out
}

// Kinds returns the error kinds, most frequent first.
func (e *ErrorCounts) Kinds() []string {
	snap := e.Snapshot()
	kinds := make([]string, 0, len(snap))
	for k := range snap {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if snap[kinds[i]] != snap[kinds[j]] {
			return snap[kinds[i]] > snap[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	return kinds
}
