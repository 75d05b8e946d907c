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

// TestBalancedNote: a balanced-rate search's line says its start, its last
// rate and its highest.
func TestBalancedNote(t *testing.T) {
	t.Parallel()
	at := func(secs, rate float64) result.RatePoint { return result.RatePoint{ElapsedSeconds: secs, Rate: rate} }
	p := &result.Producer{BalancedRates: []result.RatePoint{at(0, 10000), at(3, 20000), at(6, 40000), at(9, 12000)}}
	want := "from 10000 records/s, 3 adjustments every 3 s, the last to 12000 records/s at 9 s (highest 40000 at 6 s), over all its producers"
	if got := balancedNote(p); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := balancedNote(&result.Producer{}); got != "" {
		t.Errorf("no search: %q", got)
	}
}
