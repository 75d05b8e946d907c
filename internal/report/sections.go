package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// sectionTables are the tables of the workloads' own sections that show
// themselves (measure.Tabled): one table per title, a row per scenario
// and workload, from the section merged over the scenario's counted
// repeats (the aggregate's; the interrupted repeats' when none ended ok,
// said in the repeats column). The reports know no kind: a kind's section
// brings its columns and its note.
func sectionTables(run *result.PlanRun) []*table {
	if run == nil {
		return nil
	}
	byTitle := map[string]*table{}
	var order []string
	for _, sc := range run.Scenarios {
		agg, repeats := sc.Aggregate, ""
		if agg == nil {
			agg = sc.Interrupted
			repeats = " interrupted"
		}
		if agg == nil {
			continue
		}
		for _, w := range agg.Workloads {
			for _, name := range slices.Sorted(maps.Keys(w.Sections)) {
				tb, ok := w.Sections[name].(measure.Tabled)
				if !ok {
					continue
				}
				st := tb.Table()
				t := byTitle[st.Title]
				if t == nil {
					t = &table{Title: st.Title, Columns: append([]string{"scenario", "workload", "repeats"}, st.Columns...)}
					if st.Note != "" {
						t.Notes = []string{st.Note}
					}
					byTitle[st.Title] = t
					order = append(order, st.Title)
				}
				t.Rows = append(t.Rows, append([]string{sc.Name, w.Name, fmt.Sprint(agg.Repeats) + repeats}, st.Row...))
				t.Bad = append(t.Bad, false)
			}
		}
	}
	out := make([]*table, len(order))
	for i, title := range order {
		out[i] = byTitle[title]
	}
	return out
}
