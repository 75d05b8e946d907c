package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// shownSection is a kind's section that shows itself (measure.Tabled);
// the report knows nothing else of it.
type shownSection struct{ n int }

func (s *shownSection) Add(measure.Section) error { return nil }
func (s *shownSection) Table() measure.SectionTable {
	return measure.SectionTable{Title: "Shown", Columns: []string{"n"}, Row: []string{strings.Repeat("x", s.n)}, Note: "x is one."}
}

// hiddenSection does not show itself: no table.
type hiddenSection struct{}

func (hiddenSection) Add(measure.Section) error { return nil }

// TestSectionTables: a section that shows itself is a row of its title's
// table in summary.md, per scenario and workload, from the aggregate (or
// the interrupted repeats'); other sections add no table.
func TestSectionTables(t *testing.T) {
	t.Parallel()
	agg := func(n, repeats int) *result.Aggregate {
		return &result.Aggregate{Repeats: repeats, Workloads: []result.WorkloadAggregate{{Name: "rt",
			Sections: result.Sections{"shown": &shownSection{n}, "hidden": hiddenSection{}}}}}
	}
	run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "a", Aggregate: agg(2, 3)}, {Name: "b", Interrupted: agg(3, 1)}, {Name: "c"}}}
	ts := sectionTables(run)
	if len(ts) != 1 {
		t.Fatalf("%d tables, want 1", len(ts))
	}
	want := [][]string{{"a", "rt", "3", "xx"}, {"b", "rt", "1 interrupted", "xxx"}}
	if got := ts[0].Rows; len(got) != 2 || strings.Join(got[0], "|") != strings.Join(want[0], "|") || strings.Join(got[1], "|") != strings.Join(want[1], "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := WriteSummaryMarkdown(&b, &result.Document{Plan: run}); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "## Shown\n\n| scenario | workload | repeats | n |\n| --- | --- | --- | --- |\n| a | rt | 3 | xx |\n") || !strings.Contains(md, "x is one.") {
		t.Errorf("summary.md lacks the section's table:\n%s", md)
	}
}
