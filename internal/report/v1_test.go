package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestReportV1Result: a v1 result (a plan run of the kbench before result
// v2, in ../result/testdata) still reports: summary.md, summary.csv and
// report.html, with its scenario and its interval charts.
func TestReportV1Result(t *testing.T) {
	doc, err := result.Read("../result/testdata/v1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteAll(dir, doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.md", "summary.csv", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "writers") {
			t.Errorf("%s does not name the workload writers:\n%.2000s", f, b)
		}
	}
}
