package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestSummaryCSVExactRecords: regression: summary.csv printed records, an
// int64 count, through a float64 mean: 9007199254740993 records (2^53+1)
// were written 9007199254740992. The mean over the repeats comes from
// their exact sum, rounded to a whole record as before (half to even); the
// total row and a workload's own row alike.
func TestSummaryCSVExactRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		records [][]int64 // per repeat, per producing workload
		want    []string  // the records column, row by row
	}{
		{"one repeat past 2^53", [][]int64{{1<<53 + 1}}, []string{"9007199254740993"}},
		{"the mean of two past 2^53", [][]int64{{1<<53 + 1}, {1<<53 + 5}}, []string{"9007199254740995"}},
		{"near the largest int64", [][]int64{{math.MaxInt64 / 2}, {math.MaxInt64/2 - 1}}, []string{"4611686018427387902"}},
		{"half rounds to even", [][]int64{{2}, {3}}, []string{"2"}},
		{"half rounds to even, up", [][]int64{{3}, {4}}, []string{"4"}},
		{"workloads and their total", [][]int64{{1<<53 + 1, 1 << 53}}, []string{"9007199254740993", "9007199254740992", "18014398509481985"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := result.Scenario{Index: 1, Name: "s"}
			for i, ws := range tt.records {
				rep := result.Repeat{Index: i + 1, Status: result.StatusOK}
				for k, n := range ws {
					rep.Workloads = append(rep.Workloads, result.Workload{Name: []string{"a", "b"}[k], Type: "produce",
						Producer: &result.Producer{Records: n, DurationSeconds: 1, RecordsPerSec: float64(n), Latency: latency(t, 1000)}})
				}
				sc.Repeats = append(sc.Repeats, rep)
			}
			if err := result.AggregateScenario(&sc); err != nil {
				t.Fatal(err)
			}
			doc := &result.Document{Kind: result.KindPlan, Plan: &result.PlanRun{Name: "p", Scenarios: []result.Scenario{sc}}}
			var buf bytes.Buffer
			if err := WriteSummaryCSV(&buf, doc); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := -1
			for i, h := range rows[0] {
				if h == "records" {
					col = i
				}
			}
			var got []string
			for _, r := range rows[1:] {
				got = append(got, r[col])
			}
			if len(got) != len(tt.want) {
				t.Fatalf("records %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("row %d: records %s, want %s", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}
