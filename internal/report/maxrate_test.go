package report

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestMaxRateTable: the search's runs fold into its steps, the
// confirmation rounds carry their counts, a failed round is flagged, and
// the note names the answer, its confirmation and the bracket.
func TestMaxRateTable(t *testing.T) {
	m := &result.MaxRate{Percentile: "p99", LimitMs: 50, On: "publish", Rate: 13950, Found: 15500, LastMet: 13950, FirstMissed: 15500, FullSpeed: 40000, Limit: "cluster",
		Probes: []result.Probe{
			{Rate: 0, Achieved: 40000, LatencyMs: 900, Warmup: true},
			{Rate: 1000, Achieved: 1000, LatencyMs: 10, OK: true}, {Rate: 1000, Achieved: 1000, LatencyMs: 12, OK: true}, {Rate: 1000, Achieved: 1000, LatencyMs: 90},
			{Rate: 16000, Achieved: 15000, LatencyMs: 70},
			{Rate: 15500, Achieved: 15500, LatencyMs: 56, Confirm: true}, {Rate: 15500, Achieved: 15500, LatencyMs: 60, Confirm: true},
			{Rate: 13950, Achieved: 13950, LatencyMs: 30, OK: true, Confirm: true}, {Rate: 13950, Achieved: 13950, LatencyMs: 31, OK: true, Confirm: true},
			{Rate: 13950, Achieved: 13950, LatencyMs: 29, OK: true, Confirm: true}, {Rate: 13950, Achieved: 13950, LatencyMs: 70, Confirm: true},
			{Rate: 13950, Achieved: 13950, LatencyMs: 33, OK: true, Confirm: true},
		},
		Confirmations: []result.Confirmation{{Rate: 15500, Runs: 2, Needed: 4}, {Rate: 13950, Runs: 5, Met: 4, Needed: 4, Confirmed: true}},
	}
	run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1, Workloads: []result.Workload{{Name: "p", MaxRate: m}}}}}}}
	tb := maxRateTable(run)
	if tb == nil {
		t.Fatal("no table")
	}
	want := [][]string{
		{"warm-up", "full speed", "1", "not judged"},
		{"search", "1000", "3", "2 of 3"},
		{"search", "16000", "1", "0 of 1"},
		{"confirm", "15500", "2", "0 of 2 (4 needed)"},
		{"confirm", "13950", "5", "4 of 5 (4 needed)"},
	}
	wantBad := []bool{false, false, true, true, false}
	if len(tb.Rows) != len(want) {
		t.Fatalf("rows %v, want %d", tb.Rows, len(want))
	}
	for i, w := range want {
		if got := tb.Rows[i][3:7]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %v, want %v", i, got, w)
		}
		if tb.Bad[i] != wantBad[i] {
			t.Errorf("row %d flagged %v, want %v", i, tb.Bad[i], wantBad[i])
		}
	}
	if got := tb.Rows[4][8]; got != "31.0" {
		t.Errorf("confirming round's median latency %s, want 31.0", got)
	}
	note := maxRateNote(m)
	for _, s := range []string{"13950 records/s, confirmed by 4 of 5 independent runs", "the search found 15500", "last met at 13950 records/s and first missed at 15500", "40000 records/s at full speed"} {
		if !strings.Contains(note, s) {
			t.Errorf("note %q lacks %q", note, s)
		}
	}
	none := &result.MaxRate{Percentile: "p99", LimitMs: 50, On: "publish", FirstMissed: 31, Limit: "cluster"}
	if note := maxRateNote(none); !strings.Contains(note, "none confirmed") || !strings.Contains(note, "missed at every rate run, down to 31 records/s") {
		t.Errorf("note %q: want none confirmed, missed down to 31", note)
	}
	if maxRateTable(&result.PlanRun{}) != nil {
		t.Error("a table without a search")
	}
}
