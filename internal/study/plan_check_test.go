package study

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/plan"
)

// matrixPlan is a plan of n scenarios, each with its own record size and
// topic.
func matrixPlan(t *testing.T, n int) (*plan.Plan, []plan.Scenario) {
	t.Helper()
	sizes := make([]string, n)
	for i := range sizes {
		sizes[i] = fmt.Sprint(i + 1)
	}
	text := `name: big
topics:
  - {name: "t-${size}", partitions: 3, replication: 1}
workloads:
  - {name: p, type: produce, topic: "t-${size}", records: 1000, properties: {acks: 1}, message: {size: "${size}"}}
  - {name: c, type: consume, topic: "t-${size}", records: 1000}
matrix:
  size: [` + strings.Join(sizes, ", ") + `]
`
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if len(scs) != n {
		t.Fatalf("%d scenarios, want %d", len(scs), n)
	}
	return p, scs
}

// TestCheckPlanMemory: regression: checking a plan (--dry-run) made a
// 32 MiB buffer of letters per scenario and parsed every scenario's client
// properties anew: 1,000 scenarios were killed at 22 GB. Checking
// allocates a few KiB per scenario, whatever their number.
func TestCheckPlanMemory(t *testing.T) { // not parallel: it counts allocations
	for _, n := range []int{20, 2000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p, scs := matrixPlan(t, n)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := CheckPlan(p, scs); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			per := (after.TotalAlloc - before.TotalAlloc) / uint64(n)
			t.Logf("%d scenarios: %d KiB each", n, per>>10)
			if per > 64<<10 {
				t.Errorf("checking %d scenarios allocated %d KiB per scenario", n, per>>10)
			}
		})
	}
}
