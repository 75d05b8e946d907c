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

// TestMaxRateStory: the summary tells the search's real story
// (regressions: a warm-up where 30,129 of 33,279 records failed showed
// only "315 records/s"; "last met at 963, first missed at 991" while the
// table showed 991 met in the search; confirmation steps blamed on p99
// where 4 of 6 runs met the latency limit and reached under 95% of the
// rate asked). Each step says why its runs missed.
func TestMaxRateStory(t *testing.T) {
	m := &result.MaxRate{Percentile: "p99", LimitMs: 50, On: "publish", Rate: 963, Found: 991, LastMet: 963, FirstMissed: 991, FullSpeed: 315,
		Limit: "cluster", PerRate: 3, PerRateNeeded: 3,
		Probes: []result.Probe{
			{Achieved: 315, LatencyMs: 9000, Warmup: true, Sent: 33279, Failed: 30129, Unacknowledged: 30129},
			{Rate: 1000, Achieved: 1000, LatencyMs: 10, OK: true, Step: 1}, {Rate: 1000, Achieved: 900, LatencyMs: 12, Step: 1},
			{Rate: 991, Achieved: 991, LatencyMs: 10, OK: true, Step: 2}, {Rate: 991, Achieved: 990, LatencyMs: 12, OK: true, Step: 2}, {Rate: 991, Achieved: 989, LatencyMs: 11, OK: true, Step: 2},
			{Rate: 991, Achieved: 900, LatencyMs: 20, Confirm: true, Step: 3}, {Rate: 991, Achieved: 991, LatencyMs: 80, Confirm: true, Step: 3},
			{Rate: 963, Achieved: 963, LatencyMs: 20, OK: true, Confirm: true, Step: 4}, {Rate: 963, Achieved: 960, LatencyMs: 21, OK: true, Confirm: true, Step: 4},
			{Rate: 963, Achieved: 962, LatencyMs: 22, OK: true, Confirm: true, Step: 4}, {Rate: 963, Achieved: 900, LatencyMs: 19, Confirm: true, Step: 4},
			{Rate: 963, Achieved: 961, LatencyMs: 20, OK: true, Confirm: true, Step: 4},
		},
		Confirmations: []result.Confirmation{{Rate: 991, Runs: 2, Needed: 4}, {Rate: 963, Runs: 5, Met: 4, Needed: 4, Confirmed: true}},
	}
	run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1, Workloads: []result.Workload{{Name: "p", MaxRate: m}}}}}}}
	tb := maxRateTable(run)
	want := [][]string{
		{"warm-up", "full speed", "1", "not judged", "30129 of 33279 records failed"},
		{"search", "1000", "2", "1 of 2 (3 needed)", "1 below 95% of the rate asked"},
		{"search", "991", "3", "3 of 3 (3 needed)", ""},
		{"confirm", "991", "2", "0 of 2 (4 needed)", "1 over the latency limit, 1 below 95% of the rate asked"},
		{"confirm", "963", "5", "4 of 5 (4 needed)", "1 below 95% of the rate asked"},
	}
	wantBad := []bool{false, true, false, true, false}
	if len(tb.Rows) != len(want) {
		t.Fatalf("rows %v, want %d", tb.Rows, len(want))
	}
	for i, w := range want {
		got := append(append([]string(nil), tb.Rows[i][3:7]...), tb.Rows[i][9])
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
		if tb.Bad[i] != wantBad[i] {
			t.Errorf("row %d flagged %v, want %v", i, tb.Bad[i], wantBad[i])
		}
	}
	note := maxRateNote(m)
	for _, s := range []string{
		"last met at 963 records/s and first missed at 991 (met in the search, missed in confirmation)",
		"confirming runs that missed: 1 over the latency limit, 2 below 95% of the rate asked",
		"the warm-up reached 315 records/s at full speed, and 30129 of the 33279 records it sent failed",
	} {
		if !strings.Contains(note, s) {
			t.Errorf("note %q lacks %q", note, s)
		}
	}
	for _, tt := range []struct {
		m    result.MaxRate
		want string
	}{
		{result.MaxRate{Stopped: "floor", Floor: 100, FirstMissed: 100}, "none confirmed (even the floor, 100 records/s, missed the SLO: the search stopped there)"},
		{result.MaxRate{Stopped: "max_time", MaxTimeSeconds: 3600, Found: 5000, LastMet: 5000}, "none confirmed (the search reached its time bound, 1h, first)"},
		{result.MaxRate{Stopped: "ceiling", Rate: 8000, Found: 8000}, "8000 records/s (the search's ceiling: it asked no higher rate)"},
	} {
		if note := maxRateNote(&tt.m); !strings.Contains(note, tt.want) {
			t.Errorf("note %q lacks %q", note, tt.want)
		}
	}
}
