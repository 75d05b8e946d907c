package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestSummaryCSVFailedColumns: regression: summary.csv's "errors" column
// added failed records to failed repeats (and, when every repeat failed,
// was the number of repeats), so "2" could be two records or two runs.
// failed_records counts records (the workload's own on its row),
// failed_repeats counts repeats.
func TestSummaryCSVFailedColumns(t *testing.T) {
	t.Parallel()
	lat := latency(t, 1000, 2000)
	prod := func(name string, failed int64) result.Workload {
		return result.Workload{Name: name, Type: "produce", Producer: &result.Producer{Records: 1000, Failed: failed, RecordsPerSec: 100, Latency: lat}}
	}
	rep := func(i int, status string, ws ...result.Workload) result.Repeat {
		return result.Repeat{Index: i, Status: status, StartedAt: time.Unix(0, 0).UTC(), EndedAt: time.Unix(10, 0).UTC(), Workloads: ws}
	}
	scs := []result.Scenario{
		{Index: 1, Name: "two", Repeats: []result.Repeat{
			rep(1, result.StatusOK, prod("a", 7), prod("b", 0)),
			rep(2, result.StatusOK, prod("a", 1), prod("b", 2)),
			rep(3, result.StatusFailed, prod("a", 3), prod("b", 0)),
		}},
		{Index: 2, Name: "all-failed", Repeats: []result.Repeat{
			rep(1, result.StatusFailed, prod("a", 0), prod("b", 0)),
			rep(2, result.StatusFailed, prod("a", 0), prod("b", 0)),
		}},
	}
	for i := range scs {
		if err := result.AggregateScenario(&scs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if a := scs[0].Aggregate; a.FailedRecords != 13 || a.FailedRepeats != 1 || a.Errors != 14 {
		t.Fatalf("aggregate: failed records %d, failed repeats %d, errors %d; want 13, 1, 14", a.FailedRecords, a.FailedRepeats, a.Errors)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Plan = &result.PlanRun{Name: "p", Repeat: 3, Scenarios: scs}
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, doc); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	want := map[string][2]string{ // workload cell → failed_records, failed_repeats
		"two/a": {"11", "1"}, "two/b": {"2", "1"}, "two/total: a + b": {"13", "1"},
		"all-failed/": {"0", "2"},
	}
	got := map[string][2]string{}
	for _, r := range rows[1:] {
		got[r[0]+"/"+r[col["workload"]]] = [2]string{r[col["failed_records"]], r[col["failed_repeats"]]}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("row %s: failed_records, failed_repeats = %v, want %v (rows %v)", k, got[k], w, rows)
		}
	}
	if _, ok := col["errors"]; ok {
		t.Error(`summary.csv still has the ambiguous "errors" column`)
	}
}

// TestSummaryPlateauNotes: regression: a ramp of virtual users had no
// per-plateau figures in summary.md; each plateau now has a line with its
// users, records/s, p50/p99 and Little's law's check.
func TestSummaryPlateauNotes(t *testing.T) {
	t.Parallel()
	lat := latency(t, 1000, 2000)
	w := result.Workload{Name: "users", Type: "produce", Producer: &result.Producer{Records: 1000, RecordsPerSec: 100, Latency: lat,
		Plateaus: []result.Plateau{{VUs: 8, FromSeconds: 6, ToSeconds: 10, Records: 4000, RecordsPerSec: 1000, P50Ms: 7.5, P99Ms: 12, MeanMs: 7.8, LittleUsers: 7.8, LittleRatio: 0.975}}}}
	sc := result.Scenario{Index: 1, Name: "ramp", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK, StartedAt: time.Unix(0, 0).UTC(), EndedAt: time.Unix(10, 0).UTC(), Workloads: []result.Workload{w}}}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Plan = &result.PlanRun{Name: "p", Repeat: 1, Scenarios: []result.Scenario{sc}}
	var buf bytes.Buffer
	if err := WriteSummaryMarkdown(&buf, doc); err != nil {
		t.Fatal(err)
	}
	want := "Plateau of 8 virtual users (ramp, repeat 1, users), 6–10 s: 1000 records/s, p50 7.50 ms, p99 12.00 ms; Little's law: 1000 records/s × 7.80 ms mean latency = 7.80 users busy of 8 (98%"
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("summary.md lacks %q:\n%s", want, buf.String())
	}
}
