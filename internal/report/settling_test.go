package report

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestSettlingTable: a member that joined and left a running group gets a
// row each in summary.md's group changes table, timed from the repeat's
// start; a run without such changes has no table.
func TestSettlingTable(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cfg := map[string]string{"group.id": "g"}
	ws := []result.Workload{
		{Name: "base", Type: "consume", Config: cfg, Consumer: &result.Consumer{GroupChanges: []result.GroupChange{
			{At: at(0), Event: "joined"}, {At: at(3000), Event: "assigned", Partitions: 6},
			{At: at(20500), Event: "revoked", Partitions: 3}, {At: at(40700), Event: "assigned", Partitions: 3}, {At: at(60000), Event: "left"}}}},
		{Name: "late", Type: "consume", Config: cfg, Consumer: &result.Consumer{GroupChanges: []result.GroupChange{
			{At: at(20000), Event: "joined"}, {At: at(21250), Event: "assigned", Partitions: 3}, {At: at(40000), Event: "left"}}}},
	}
	for _, tt := range []struct {
		name string
		ws   []result.Workload
		want []string
	}{
		{"join and leave", ws, []string{
			"| protocol=consumer | 1 | g | late joined | 20.0 | 1250 | 2 | 750 |",
			"| protocol=consumer | 1 | g | late left | 40.0 | 700 | 1 | 700 |",
		}},
		{"none", ws[:1], nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := &result.PlanRun{Name: "p", Repeat: 1, Scenarios: []result.Scenario{{Name: "protocol=consumer",
				Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK, StartedAt: t0, EndedAt: at(60000), Workloads: tt.ws}}}}}
			tb := settlingTable(run)
			if tt.want == nil {
				if tb != nil {
					t.Errorf("table %+v, want none", tb)
				}
				return
			}
			var b strings.Builder
			writeTable(&b, tb)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}
