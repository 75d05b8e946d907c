package report

import (
	"maps"
	"slices"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// SectionColumns are the measured sections table's columns.
var SectionColumns = []string{"scenario", "workload", "figure", "value"}

// sectionsTable shows what kinds measured in sections of their own shape
// (result.Workload.Sections), merged over the counted repeats, as each
// section describes itself (measure.Describer): the report knows no
// section's fields. nil when no section describes itself.
func sectionsTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	t := &table{Title: "Measured sections", Columns: SectionColumns}
	for _, sc := range run.Scenarios {
		agg := sc.Aggregate
		if agg == nil {
			agg = sc.Interrupted
		}
		if agg == nil {
			continue
		}
		for _, w := range agg.Workloads {
			names := slices.Sorted(maps.Keys(w.Sections))
			for _, name := range names {
				d, ok := w.Sections[name].(measure.Describer)
				if !ok {
					continue
				}
				for _, f := range d.Describe() {
					t.Rows = append(t.Rows, []string{sc.Name, w.Name, f.Name, f.Value})
					t.Bad = append(t.Bad, false)
				}
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "Figures a workload kind measured in a shape of its own, over the repeats that count (result.json's sections).")
	return t
}
