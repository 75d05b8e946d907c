package report

import (
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestDrainOfPartitions: a catch-up read of several partitions says when
// the last caught up (drain_seconds is the first's), or how many never did.
func TestDrainOfPartitions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cu   result.CatchUp
		want string
	}{
		{result.CatchUp{DrainSeconds: 1.5, Partitions: 16, PartitionsCaughtUp: 16, LastDrainSeconds: 4.25, LastRecords: 514634},
			" in its first partition; all 16 partitions in 4.2 s (514634 records)"},
		{result.CatchUp{DrainSeconds: 1.5, Partitions: 16, PartitionsCaughtUp: 12}, " in its first partition; only 12 of its 16 partitions ever caught up"},
		{result.CatchUp{DrainSeconds: 1.5, Partitions: 1, PartitionsCaughtUp: 1, LastDrainSeconds: 1.5}, ""},
		{result.CatchUp{Partitions: 4}, ""},
	} {
		if got := drainOfPartitions(&tc.cu); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.cu, got, tc.want)
		}
	}
}
