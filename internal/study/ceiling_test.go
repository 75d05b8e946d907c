package study

import (
	"math"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/plan"
)

// TestCeilings: the readers' theoretical maximum, for the consumer group
// (its members up to the partitions) and the share group (its members up
// to the record locks its fetches can hold), with the scenario's broker
// setting of the locks.
func TestCeilings(t *testing.T) {
	t.Parallel()
	const head = "name: q\ncluster: {bootstrap: localhost:9092}\ntopics: [{name: t, partitions: 4}]\nworkloads:\n"
	for _, tt := range []struct {
		name, workload string
		configs        map[string]string
		want           float64
		formula        string
	}{
		{"consumer group, more members than partitions", "  - {name: r, type: consume, topic: t, group: g, clients: 8, processing: 1ms}\n", nil,
			4000, "min(8 consumers, 4 partitions) ÷ 1ms per record"},
		{"consumer group, fewer", "  - {name: r, type: consume, topic: t, group: g, clients: 2, processing: {distribution: uniform, min: 1ms, max: 3ms}}\n", nil,
			1000, "min(2 consumers, 4 partitions) ÷ 2ms per record"},
		{"share group, members bind", "  - {name: r, type: share-consume, topic: t, clients: 16, processing: 2ms}\n", nil,
			8000, "min(16 members, 4 partitions × 2000 record locks ÷ 500 records in flight per member) ÷ 2ms per record"},
		{"share group, locks bind", "  - {name: r, type: share-consume, topic: t, clients: 16, processing: 2ms, share: {max_poll_records: 100}}\n",
			map[string]string{"group.share.partition.max.record.locks": "200"},
			4000, "min(16 members, 4 partitions × 200 record locks ÷ 100 records in flight per member) ÷ 2ms per record"},
		{"no processing time", "  - {name: r, type: share-consume, topic: t, clients: 16}\n", nil, 0, ""},
		{"a writer", "  - {name: w, type: produce, topic: t, records: 10, message: {size: 10}}\n", nil, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan.Parse("plan.yaml", []byte(head+tt.workload), nil, PlanTypes()...)
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
			got := ceilings(Kinds(), &scs[0], &sc, tt.configs)
			if tt.formula == "" {
				if len(got) != 0 {
					t.Errorf("ceilings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || math.Abs(got[0].RecordsPerSec-tt.want) > 1e-6 || got[0].Formula != tt.formula || !strings.HasPrefix(got[0].Workload, "r") {
				t.Errorf("ceilings %+v, want %g records/s by %q", got, tt.want, tt.formula)
			}
		})
	}
}
