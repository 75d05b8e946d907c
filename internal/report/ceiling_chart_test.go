package report

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kbench/kbench/internal/browsertest"
	"github.com/kbench/kbench/internal/result"
)

// shareStudyDoc is the share study's shape: a consumer group and a share
// group of 1 to 8 readers, each scenario with its readers' theoretical
// maximum (result.Ceilings) where ceilings says so.
func shareStudyDoc(t testing.TB, ceilings bool) *result.Document {
	t.Helper()
	run := &result.PlanRun{Name: "share-groups", Parameters: []string{"group", "consumers"}, Repeat: 1}
	t0 := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	i := 0
	for _, group := range []string{"consume", "share-consume"} {
		for _, n := range []int{1, 2, 4, 8} {
			i++
			rate := 900.0 * float64(min(n, 4))
			limit := 1000.0 * float64(min(n, 4))
			if group == "share-consume" {
				rate, limit = 900*float64(n), 1000*float64(n)
			}
			sc := result.Scenario{Index: i, Name: "group=" + group + ",consumers=" + itoa(n),
				Params: []result.Param{{Name: "group", Value: group}, {Name: "consumers", Value: itoa(n)}},
				Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK, StartedAt: t0, EndedAt: t0.Add(10 * time.Second),
					Workloads: []result.Workload{{Name: "readers", Type: group, Consumer: &result.Consumer{Clients: n,
						Records: int64(rate * 10), RecordsPerSec: rate, ReadingSeconds: 10, DurationSeconds: 10}}}}}}
			if ceilings {
				sc.Ceilings = []result.Ceiling{{Workload: "readers", RecordsPerSec: limit, Formula: "test"}}
			}
			if err := result.AggregateScenario(&sc); err != nil {
				t.Fatal(err)
			}
			run.Scenarios = append(run.Scenarios, sc)
		}
	}
	doc := result.New(result.KindPlan, "test", t0, nil)
	doc.Status = result.StatusOK
	doc.Plan = run
	return doc
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMatrixCeiling: the readers' theoretical maximum goes with the
// consumed records/s chart only, per series, at each x.
func TestMatrixCeiling(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		ceilings bool
		want     map[string][]float64
	}{
		{"with ceilings", true, map[string][]float64{"group=consume": {1000, 2000, 4000, 4000}, "group=share-consume": {1000, 2000, 4000, 8000}}},
		{"without", false, map[string][]float64{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := matrix(shareStudyDoc(t, tt.ceilings).Plan)
			got := map[string][]float64{}
			for _, mt := range m.Metrics {
				for _, s := range mt.Series {
					if s.Ceiling == nil {
						continue
					}
					if mt.Name != "consumed records/s" {
						t.Errorf("a ceiling on %q", mt.Name)
					}
					for _, v := range s.Ceiling {
						if v == nil {
							t.Fatalf("series %q: a point without its ceiling: %v", s.Name, s.Ceiling)
						}
						got[s.Name] = append(got[s.Name], *v)
					}
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("ceilings %v, want %v", got, tt.want)
			}
			for name, vs := range tt.want {
				for i, v := range vs {
					if i >= len(got[name]) || got[name][i] != v {
						t.Errorf("series %q: ceilings %v, want %v", name, got[name], vs)
						break
					}
				}
			}
		})
	}
}

// TestCeilingInBrowser: the consumed records/s chart draws each series'
// theoretical maximum as a dashed line with a point at every x, beside
// the measured lines, and no other chart draws one.
func TestCeilingInBrowser(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, shareStudyDoc(t, true)); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	type drawn struct {
		Title  string   `json:"title"`
		Dashed []string `json:"dashed"`
		Points []int    `json:"points"`
		Solid  int      `json:"solid"`
	}
	var got []drawn
	look := chromedp.Evaluate(`window.KBENCH_CHARTS.filter(c => / by /.test(c.title)).map(c => {
		const ss = c.plot.series.slice(1);
		const dashed = ss.map((s, i) => [s, i + 1]).filter(([s]) => s.dash && s.dash.length && s.show !== false);
		return {title: c.title, dashed: dashed.map(([s]) => s.label),
			points: dashed.map(([, i]) => c.plot.data[i].filter(v => v != null).length),
			solid: ss.filter(s => !s.dash).length};
	})`, &got)
	charts, errs, reqs := browsertest.Open(t, page, look)
	if len(errs) > 0 || len(reqs) > 0 {
		t.Errorf("console errors %q, requests %q", errs, reqs)
	}
	found := false
	for _, d := range got {
		if d.Title != "consumed records/s by consumers" {
			if len(d.Dashed) > 0 {
				t.Errorf("chart %q draws %v", d.Title, d.Dashed)
			}
			continue
		}
		found = true
		want := []string{"group=consume theoretical max", "group=share-consume theoretical max"}
		if len(d.Dashed) != 2 || d.Dashed[0] != want[0] || d.Dashed[1] != want[1] || d.Solid != 2 {
			t.Errorf("dashed lines %v beside %d measured ones, want %v beside 2", d.Dashed, d.Solid, want)
		}
		for i, n := range d.Points {
			if n != 4 {
				t.Errorf("%s: %d points, want 4 (one per consumers value)", d.Dashed[i], n)
			}
		}
	}
	if !found {
		t.Errorf("no consumed records/s chart among %+v", charts)
	}
	browsertest.Screenshot(t, page, "report-ceiling.png")
}
