package result

import (
	"strings"
	"testing"
)

// TestAggregateFlagsShortSteadyWindow guards issue 33 item 6: steady
// windows of 0.10-0.33 s printed 2,119,291 ± 813,605 records/s without a
// remark. The aggregate flags a window under ShortSteadySeconds (as it
// flags instability), with the shortest, and the advice says what to
// change.
func TestAggregateFlagsShortSteadyWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		windows   []float64 // each repeat's steady window, s
		want      bool
		wantShort float64
	}{
		{"tiny windows", []float64{0.33, 0.10}, true, 0.10},
		{"one short of two", []float64{12, 2.5}, true, 2.5},
		{"long enough", []float64{12, 10}, false, 0},
	}
	for _, tt := range tests {
		sc := Scenario{Name: "s"}
		for i, d := range tt.windows {
			sc.Repeats = append(sc.Repeats, Repeat{Index: i + 1, Status: StatusOK, Workloads: []Workload{{Name: "p", Type: "produce",
				Producer: &Producer{Records: 1000, RecordsPerSec: 1000, SteadyState: &Producer{Records: 500, RecordsPerSec: 2e6, DurationSeconds: d}}}}})
		}
		if err := AggregateScenario(&sc); err != nil {
			t.Fatal(err)
		}
		a := sc.Aggregate
		if a.ShortSteady != tt.want || a.ShortestSteadySeconds != tt.wantShort {
			t.Errorf("%s: short %v (shortest %g), want %v (%g)", tt.name, a.ShortSteady, a.ShortestSteadySeconds, tt.want, tt.wantShort)
		}
	}
	if advice := ShortSteadyAdvice(0.1); !strings.Contains(advice, "0.10 s") || !strings.Contains(advice, "run longer") {
		t.Errorf("advice %q", advice)
	}
}
