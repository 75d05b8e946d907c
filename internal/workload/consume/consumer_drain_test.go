package consume

import (
	"testing"
	"time"

	"github.com/kbench/kbench/internal/workload/engine"
)

// TestDrainOf: the last partition to catch up ends the drain, a partition
// read by two clients counts at the first, and a partition that never
// caught up leaves the drain unfinished.
func TestDrainOf(t *testing.T) {
	t.Parallel()
	tp := func(p int32) engine.TopicPartition { return engine.TopicPartition{Topic: "t", Partition: p} }
	a := &Client{drained: map[engine.TopicPartition]partitionCatchUp{tp(0): {time.Second, 100}, tp(1): {3 * time.Second, 900}}}
	b := &Client{drained: map[engine.TopicPartition]partitionCatchUp{tp(2): {2 * time.Second, 500}, tp(1): {4 * time.Second, 1000}}}
	for _, tc := range []struct {
		name    string
		clients []*Client
		parts   int
		want    Drain
	}{
		{"all caught up", []*Client{a, b}, 3, Drain{Partitions: 3, CaughtUp: 3, Last: 3 * time.Second, LastRecords: 900}},
		{"one never did", []*Client{a, b}, 4, Drain{Partitions: 4, CaughtUp: 3}},
		{"none", []*Client{{}}, 2, Drain{Partitions: 2}},
	} {
		if got := drainOf(tc.clients, map[string]int{"t": tc.parts}); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
