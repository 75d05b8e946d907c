package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestSmallFiguresNotZero guards small figures printed as zero: 5-byte
// records at 1,000/s are 0.0048 MB/s, which two decimals showed as 0.00
// in summary.md and report.html (and three as 0.005 in summary.csv).
func TestSmallFiguresNotZero(t *testing.T) {
	t.Parallel()
	sc := result.Scenario{Index: 1, Name: "record_size=5", Params: []result.Param{{Name: "record_size", Value: "5"}}, Repeats: []result.Repeat{{
		Index: 1, Status: result.StatusOK, Workloads: []result.Workload{{Name: "p", Type: "produce",
			Producer: &result.Producer{Records: 10000, RecordsPerSec: 1000, MiBPerSec: 5000.0 / (1 << 20), Latency: latency(t, 3000, 4000)}}},
	}}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Plan = &result.PlanRun{Name: "tiny", Parameters: []string{"record_size"}, Repeat: 1, Scenarios: []result.Scenario{sc}}
	var md, csv, html bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryCSV(&csv, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, doc, HTMLInput{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, out, want string }{
		{"summary.md", md.String(), "| 5 | 1 | 1000 | 0.00477 |"},
		{"summary.csv", csv.String(), ",1000.0,0.0,0.00477,"},
		{"report.html", html.String(), "<td>0.00477</td>"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.name, c.want, c.out)
		}
	}
}
