package study

import (
	"testing"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload"
)

// TestShareGroupOfTheRun: regression: a share workload's group defaulted
// to the workload's name, so two plans with a workload "readers" on one
// cluster shared one group (and a second run resumed the first's). Without
// a group the run names its own from its id; a group the plan gives is
// kept.
func TestShareGroupOfTheRun(t *testing.T) {
	t.Parallel()
	group := func(t *testing.T, text, runID string) string {
		t.Helper()
		p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
		if err != nil {
			t.Fatal(err)
		}
		scs, err := p.Scenarios()
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarioOf(p, &scs[0], "localhost:9092", &build{seed: RunSeed(p), runID: runID})
		if err != nil {
			t.Fatal(err)
		}
		return sc.Workloads[0].Spec.(workload.ShareConsume).Spec.Group
	}
	const unnamed = "name: q\nworkloads: [{name: readers, type: share-consume, topic: t, records: 10}]\n"
	a, b := group(t, unnamed, "0a1b2c3d"), group(t, unnamed, "4e5f6071")
	if a != "kbench-readers-0a1b2c3d" || b == a {
		t.Errorf("groups of two runs %q and %q; want kbench-readers-RUNID, one per run", a, b)
	}
	const named = "name: q\nworkloads: [{name: readers, type: share-consume, topic: t, records: 10, group: shared}]\n"
	if g := group(t, named, "0a1b2c3d"); g != "shared" {
		t.Errorf("group %q, want the plan's", g)
	}
	if id := runID(Options{}); len(id) != 8 || id == runID(Options{}) {
		t.Errorf("run ids %q: want 8 hex digits, fresh each run", id)
	}
}

// TestShareRecordsInFlight: share.max_poll_records is each member's
// records in flight: max.poll.records, made a strict bound
// (share.acquire.mode=record_limit); without it max.poll.records stays the
// properties' soft bound.
func TestShareRecordsInFlight(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, extra string
		max         int
		strict      bool
	}{
		{"field", ", share: {max_poll_records: 40}", 40, true},
		{"property", ", properties: {max.poll.records: 40}", 40, false},
		{"neither", "", 500, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := "name: q\nworkloads: [{name: readers, type: share-consume, topic: t, records: 10" + tt.extra + "}]\n"
			p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			scs, err := p.Scenarios()
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenarioOf(p, &scs[0], "localhost:9092", &build{seed: RunSeed(p), runID: "0a1b2c3d"})
			if err != nil {
				t.Fatal(err)
			}
			sc0 := sc.Workloads[0].Spec.(workload.ShareConsume)
			spec := sc0.Spec
			if spec.MaxPollRecords != tt.max || sc0.Share.RecordLimit != tt.strict {
				t.Errorf("max.poll.records %d, record limit %v; want %d, %v", spec.MaxPollRecords, sc0.Share.RecordLimit, tt.max, tt.strict)
			}
		})
	}
}
