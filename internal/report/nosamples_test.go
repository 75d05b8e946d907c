package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestNoSampleLatency: regression: a run that sent nothing printed its
// latencies as 0.0 ms. A latency with no sample is "–" in summary.md (and
// report.html's table), empty in summary.csv.
func TestNoSampleLatency(t *testing.T) {
	w := result.Workload{Name: "p", Type: "produce", Producer: &result.Producer{Latency: latency(t)}}
	sc := result.Scenario{Index: 1, Name: "s", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK,
		StartedAt: time.Unix(0, 0).UTC(), EndedAt: time.Unix(1, 0).UTC(), Workloads: []result.Workload{w}}}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "nothing", Repeat: 1, Scenarios: []result.Scenario{sc}}
	var md, csv bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryCSV(&csv, doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| – | – | – | – |") || strings.Contains(md.String(), "0.0 ±") {
		t.Errorf("summary.md:\n%s", &md)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], ",,,,,") {
		t.Errorf("summary.csv:\n%s", &csv)
	}
}
