package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kbench/kbench/internal/browsertest"
	"github.com/kbench/kbench/internal/result"
)

func TestReportInBrowser(t *testing.T) {
	dir := t.TempDir()
	doc := sweepDoc(t, 5, 5, 60)
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte("name: partition-study\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, doc); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	// Switch scenario 1 to its second repeat, as a reader would.
	pick := chromedp.SetValue(`#series .scenario select`, "1", chromedp.ByQuery)
	change := chromedp.Evaluate(`document.querySelector('#series .scenario select').dispatchEvent(new Event('change'))`, nil)
	charts, errs, reqs := browsertest.Open(t, page, pick, change)
	if len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if len(reqs) > 0 {
		t.Errorf("the page made network requests: %q", reqs)
	}
	// 7 metrics against partitions (records/s, MB/s, p50, p99, p99.9, e2e p99,
	// consumed/s), 4 distribution charts, and per scenario 2 workloads:
	// throughput and latency each, plus the consumer's lag.
	want := 7 + 4 + 5*5
	if len(charts) != want {
		t.Errorf("%d charts drawn, want %d: %+v", len(charts), want, charts)
	}
	for _, c := range charts {
		if c.Points == 0 {
			t.Errorf("chart %q has no data", c.Title)
		}
	}
	browsertest.Screenshot(t, page, "report-sweep.png")
}

// TestReportInBrowserCompressed: the page inflates gzipped data (a long
// run) and draws it.
func TestReportInBrowserCompressed(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, sweepDoc(t, 1, 1, 20000)); err != nil {
		t.Fatal(err)
	}
	charts, errs, reqs := browsertest.Open(t, filepath.Join(dir, "report.html"))
	if len(errs) > 0 || len(reqs) > 0 {
		t.Errorf("console errors %q, requests %q", errs, reqs)
	}
	if len(charts) != 4+5 {
		t.Errorf("%d charts, want 9 (4 distributions; the producer's throughput and latency; the consumer's and its lag): %+v", len(charts), charts)
	}
	for _, c := range charts {
		if c.Points == 0 {
			t.Errorf("chart %q has no data", c.Title)
		}
	}
}

// TestReportMatrixInBrowser: regression: a two-parameter matrix's charts
// had a legend of three entries per series (mean, highest and lowest
// repeat: 15 for five series) over its first parameter. Each chart has a
// legend entry per series, over the numeric parameter (lines) or, with
// none, the categorical one (bars).
func TestReportMatrixInBrowser(t *testing.T) {
	for _, tt := range []struct {
		name   string
		params []result.Param
	}{
		{"lines", []result.Param{{Name: "acks", Value: "1|all"}, {Name: "record_size", Value: "1|10|100|1000"}}},
		{"bars", []result.Param{{Name: "compression", Value: "none|lz4"}, {Name: "acks", Value: "0|1|all"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := WriteAll(dir, matrixDoc(t, 3, tt.params...)); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, "report.html")
			var legends []int
			count := chromedp.Evaluate(`window.KBENCH_CHARTS.filter(c => / by /.test(c.title)).map(c => c.plot.series.length - 1)`, &legends)
			charts, errs, reqs := browsertest.Open(t, page, count)
			if len(errs) > 0 || len(reqs) > 0 {
				t.Errorf("console errors %q, requests %q", errs, reqs)
			}
			if len(legends) != 5 { // records/s, MB/s, p50, p99, p99.9
				t.Errorf("%d charts against the swept parameter, want 5: %+v", len(legends), charts)
			}
			for i, n := range legends {
				if n != 2 {
					t.Errorf("chart %d has %d legend entries, want 2 (one per series)", i, n)
				}
			}
			for _, c := range charts {
				if c.Points == 0 {
					t.Errorf("chart %q has no data", c.Title)
				}
			}
			browsertest.Screenshot(t, page, "report-matrix-"+tt.name+".png")
		})
	}
}
