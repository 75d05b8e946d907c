package report

import (
	"fmt"
	"strconv"

	"github.com/kbench/kbench/internal/result"
)

// SettlingColumns are the group changes table's columns.
var SettlingColumns = []string{"scenario", "repeat", "group", "change", "at s", "settled after ms", "moves", "unowned ms"}

// settlingTable is each consumer group's membership changes while it ran
// (members that joined or left mid-run) and how long the group took to
// settle after each (result.GroupSettling); nil when no group changed.
func settlingTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	t := &table{Title: "Consumer group changes", Columns: SettlingColumns}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			origin := rep.StartedAt
			for _, s := range result.GroupSettling(rep.Workloads) {
				t.Rows = append(t.Rows, []string{sc.Name, strconv.Itoa(rep.Index), s.Group, s.Change,
					fmt.Sprintf("%.1f", s.At.Sub(origin).Seconds()), fmt.Sprintf("%.0f", s.SettledMs), strconv.Itoa(s.Moves), fmt.Sprintf("%.0f", s.UnownedMs)})
				t.Bad = append(t.Bad, false)
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "A member joined or left a consumer group while it ran (a workload with start_after and a duration in the same group as another): settled after is the time from the change to the last partition assigned, revoked or lost by any member before the next change; moves counts those assignment changes; unowned is the longest time in between that the members owned fewer partitions than before the change (a partition nobody read: a leaving member gives up its own as it leaves). At is from the repeat's start. Read from each consume workload's group_changes in result.json.")
	return t
}
