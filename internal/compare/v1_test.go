package compare

import (
	"bytes"
	"strings"
	"testing"
)

// TestCompareV1Result: a v1 result (a plan run of the kbench before result
// v2, in ../result/testdata) still compares, against itself: every metric
// of both sides, no change.
func TestCompareV1Result(t *testing.T) {
	const v1 = "../result/testdata/v1-result.json"
	a, err := Load(v1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(v1)
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(a, b)
	if len(r.Rows) == 0 || len(r.OnlyA)+len(r.OnlyB) != 0 {
		t.Fatalf("%d rows, only in A %v, only in B %v: want the scenario in both", len(r.Rows), r.OnlyA, r.OnlyB)
	}
	for _, row := range r.Rows {
		if row.A != nil && row.B != nil && row.Change != 0 {
			t.Errorf("%s %v: change %g%% comparing a file with itself", row.Scenario, row.Metric, row.Change)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "v1-golden") {
		t.Errorf("the comparison does not name the scenario v1-golden:\n%s", md.String())
	}
}
