package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/result"
)

// WatchedColumns are the watched groups table's columns.
var WatchedColumns = []string{"scenario", "repeat", "group", "max lag", "last lag", "after faults"}

// watchedTable is the system's consumer groups the plan watched: their
// lag through each repeat and how they came through its faults. nil when
// the plan watched none.
func watchedTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	t := &table{Title: "Watched groups", Columns: WatchedColumns}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Watched {
				last := "–"
				if n := len(w.Samples); n > 0 {
					last = strconv.FormatInt(w.Samples[n-1].Records, 10)
				}
				var after []string
				for _, r := range w.Recoveries {
					switch {
					case r.RecoveredMs == nil:
						after = append(after, fmt.Sprintf("%s: lag %d → %d, not back within the repeat", r.Fault, r.LagBefore, r.PeakLag))
					case *r.RecoveredMs == 0:
						after = append(after, fmt.Sprintf("%s: no rise", r.Fault))
					default:
						after = append(after, fmt.Sprintf("%s: lag %d → %d, back after %.0f ms", r.Fault, r.LagBefore, r.PeakLag, *r.RecoveredMs))
					}
				}
				cell := strings.Join(after, "; ")
				if cell == "" {
					cell = "–"
				}
				t.Rows = append(t.Rows, []string{sc.Name, strconv.Itoa(rep.Index), w.Group, strconv.FormatInt(w.MaxLag, 10), last, cell})
				t.Bad = append(t.Bad, w.Error != "")
				if w.Error != "" {
					t.Notes = append(t.Notes, fmt.Sprintf("%s, repeat %d, %s: %s", sc.Name, rep.Index, w.Group, w.Error))
				}
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "Lag is records behind, from each group's committed offsets, read every second through the repeat (result.json's watched samples). After a fault: the lag before it, its peak after, and how long until it was back at or under the level before (samples a second apart, so within a second).")
	return t
}
