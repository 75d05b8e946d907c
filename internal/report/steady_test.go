package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestWarmupBandAndNote: regression: the warm-up band was drawn only when
// an interval before steady state was left unmarked, so a warm-up ending
// inside the first interval (three of four reports) had no band, and
// summary.md did not say its figures left the warm-up out. The band now
// ends at steady_state.started_at and the summary says what it excludes.
func TestWarmupBandAndNote(t *testing.T) {
	t.Parallel()
	start := time.Unix(100, 0).UTC()
	steadyAt := start.Add(700 * time.Millisecond)
	iv := func(k int) result.Interval {
		return result.Interval{Start: start.Add(time.Duration(k) * time.Second), Seconds: 1, Records: 1000, RecordsPerSec: 1000, Steady: true}
	}
	w := result.Workload{Name: "p", Type: "produce", Producer: &result.Producer{
		Records: 3000, RecordsPerSec: 1000, Latency: latency(t, 1000),
		Intervals:   []result.Interval{iv(0), iv(1), iv(2)}, // all marked steady: it began in the first
		SteadyState: &result.Producer{Records: 2300, RecordsPerSec: 1000, Latency: latency(t, 1000), StartedAt: &steadyAt},
	}}
	rep := result.Repeat{Index: 1, Status: result.StatusOK, StartedAt: start, EndedAt: start.Add(3 * time.Second), Workloads: []result.Workload{w}}
	sc := result.Scenario{Index: 1, Name: "warm", Repeats: []result.Repeat{rep}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", start, nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "warm", Repeat: 1, Scenarios: []result.Scenario{sc}}

	ws := workloadCharts(rep, w)
	if ws.SteadyAt == nil || *ws.SteadyAt != 0.7 {
		t.Fatalf("warm-up band ends at %v, want 0.7 s", ws.SteadyAt)
	}
	var md bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Figures exclude the warm-up") {
		t.Fatalf("summary.md does not say its figures exclude the warm-up:\n%s", md.String())
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, doc, HTMLInput{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), warmupHint) {
		t.Fatalf("report.html does not explain the warm-up band")
	}
}

const warmupHint = "The shaded band is the warm-up"

// TestNoWarmupNoWarmupText: regression: report.html explained "the shaded
// band is the warm-up" on every report, also without a warm-up (a ramp of
// virtual users), where no band is drawn. Only a run with a warm-up says
// it, in report.html and summary.md.
func TestNoWarmupNoWarmupText(t *testing.T) {
	t.Parallel()
	doc := testDoc(t) // no warm-up
	var page, md bytes.Buffer
	if err := WriteHTML(&page, doc, HTMLInput{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), warmupHint) || strings.Contains(md.String(), "warm-up") {
		t.Fatalf("a run without a warm-up mentions one")
	}
}
