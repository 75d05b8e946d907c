package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/result"
)

// table is a titled table with notes under it, as summary.md and
// report.html show the faults and the verification.
type table struct {
	Title   string
	Columns []string
	Rows    [][]string
	Bad     []bool // rows to flag (failed)
	Notes   []string
}

// FaultColumns are the faults table's columns.
var FaultColumns = []string{"scenario", "repeat", "fault", "at s from first send", "election_ms", "unavailable_ms", "isr_shrunk_ms", "isr_recovered_ms", "status"}

// VerificationColumns are the verification table's columns.
var VerificationColumns = []string{"scenario", "repeat", "workload", "acks", "acked", "lost", "duplicated", "out_of_order", "unacknowledged", "result"}

// faultAt is when a fault's action began, in seconds from the repeat's
// first send (chartOrigin), as the charts mark it; a result without the
// action's time gives its at_seconds (from the workloads' start).
func faultAt(rep result.Repeat, f result.Fault) float64 {
	if f.Time.IsZero() {
		return f.AtSeconds
	}
	return f.Time.Sub(chartOrigin(rep)).Seconds()
}

// faultTables builds the faults and verification tables; nil when the run
// had neither.
func faultTables(run *result.PlanRun) (faults, verification *table) {
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, f := range rep.Faults {
				if faults == nil {
					faults = &table{Title: "Faults", Columns: FaultColumns}
				}
				at := "–" // it did not happen
				if f.Status == "done" || f.Status == "failed" {
					at = strconv.FormatFloat(faultAt(rep, f), 'f', 1, 64)
				}
				faults.Rows = append(faults.Rows, []string{sc.Name, strconv.Itoa(rep.Index), faultName(f), at,
					noteCell(f.ElectionMs, f.ElectionNote, timedOut(f, "election")), msCell(f.UnavailableMs), msCell(f.ISRShrunkMs),
					noteCell(f.ISRRecoveredMs, f.ISRNote, timedOut(f, "isr_recovered")), f.Status})
				faults.Bad = append(faults.Bad, f.Status == "failed")
				if f.Note != "" {
					faults.Notes = append(faults.Notes, fmt.Sprintf("%s, repeat %d, %s: %s: %s", sc.Name, rep.Index, faultName(f), f.Status, f.Note))
				}
				if f.Outcome != "" {
					faults.Notes = append(faults.Notes, fmt.Sprintf("%s, repeat %d, %s: %s.", sc.Name, rep.Index, faultName(f), f.Outcome))
				}
				if others := f.BrokerReplicas - f.PlanReplicas; others > 0 && f.BrokerReplicas > 0 {
					// Regression: ~750 partitions an earlier study left made an
					// ISR recovery 35-78 s where the study saw 9-13 s, silently.
					faults.Notes = append(faults.Notes, fmt.Sprintf("%s, repeat %d, %s: broker %d held %d partition replicas, %d of them the plan's: the other %d (other runs' topics, or made by hand) recovered too, in these figures; delete what earlier runs left (kbench cluster clean) for figures of the plan's alone.",
						sc.Name, rep.Index, faultName(f), f.Broker, f.BrokerReplicas, f.PlanReplicas, others))
				}
				if f.Error != "" {
					note := fmt.Sprintf("%s, repeat %d, %s: %s", sc.Name, rep.Index, faultName(f), f.Error)
					if out := strings.TrimSpace(f.Output); out != "" {
						note += "; output: " + firstLines(out, 5)
					}
					faults.Notes = append(faults.Notes, note)
				}
			}
			for _, v := range rep.Verification {
				if verification == nil {
					verification = &table{Title: "Verification", Columns: VerificationColumns}
				}
				verdict := "passed"
				switch {
				case v.Error != "":
					verdict = "not checked"
				case !v.Passed:
					verdict = "failed"
				}
				counts := []string{strconv.FormatInt(v.Lost, 10), strconv.FormatInt(v.Duplicated, 10),
					strconv.FormatInt(v.OutOfOrder, 10), strconv.FormatInt(v.Unacknowledged, 10)}
				if v.Error != "" {
					// Not read back: a 0 would read as "nothing lost".
					counts = []string{"–", "–", "–", "–"}
				}
				verification.Rows = append(verification.Rows, append(append([]string{sc.Name, strconv.Itoa(rep.Index), v.Workload, v.Acks,
					strconv.FormatInt(v.Acked, 10)}, counts...), verdict))
				verification.Bad = append(verification.Bad, verdict != "passed")
				where := fmt.Sprintf("%s, repeat %d, %s", sc.Name, rep.Index, v.Workload)
				if v.Error != "" {
					verification.Notes = append(verification.Notes, where+": "+v.Error)
				}
				if v.Note != "" {
					verification.Notes = append(verification.Notes, where+": "+v.Note+".")
				}
				for _, p := range v.Partitions {
					verification.Notes = append(verification.Notes, fmt.Sprintf("%s, partition %d: %s", where, p.Partition, partitionProblems(p)))
				}
			}
		}
	}
	if faults != nil {
		faults.Notes = append(faults.Notes, "at s: seconds from the repeat's first send, where the time charts start (the plan's at: counts from the workloads' start, just before it). election_ms: from the action until every partition the broker led had a leader on another broker (metadata polled every 50 ms); "+
			"it belongs to the fault that took the broker away, also when the election came after a restart had begun. A partition with no other in-sync replica has no election: it comes back with its broker, and the row says so. "+
			"\"not within N s\": the measurement gave up after N s. "+
			"unavailable_ms: the longest an affected partition went without an acknowledgement, from the last before the fault to the first after; none for a delay or a bandwidth limit, which deliver every request, later. "+
			"isr_shrunk_ms: from an action that takes a broker away or disrupts its links until a partition it replicates dropped it from its in-sync replicas. "+
			"isr_recovered_ms: from an action that brings a broker back until every partition's in-sync replicas were complete. A heal is kbench bringing back a broker the plan left down, when the workloads stop sending.")
	}
	if verification != nil {
		verification.Notes = append(verification.Notes, "Every record carried its producer client and sequence number; after the run a fresh consumer read each topic back from the start. "+
			"Lost (acknowledged, never read) fails a run with acks=all; duplicated and out_of_order fail it only with idempotence on; unacknowledged (written although the send failed or was not answered) never does.")
	}
	return faults, verification
}

func faultTableList(run *result.PlanRun) []*table {
	var out []*table
	f, v := faultTables(run)
	for _, t := range []*table{f, v} {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

func faultName(f result.Fault) string {
	what := f.Action + " " + f.Target
	if f.Broker >= 0 && !strings.HasPrefix(f.Target, "broker ") {
		what += fmt.Sprintf(" (broker %d)", f.Broker)
	}
	if f.Name != "" && f.Name != "heal" {
		return f.Name + ": " + what
	}
	if f.Name == "heal" {
		return "heal: " + what
	}
	return what
}

// noteCell is a measured time, with its note when there is one; the note
// alone when nothing was measured.
func noteCell(v *float64, note string, timedOut bool) string {
	switch {
	case v != nil && note != "":
		return msCell(v) + "; " + note
	case v != nil:
		return msCell(v)
	case note != "":
		return note
	case timedOut: // a result written before notes existed
		return "not within the bound"
	}
	return "–"
}

func timedOut(f result.Fault, what string) bool { return slices.Contains(f.TimedOut, what) }

func msCell(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', 0, 64)
}

func offsets(os []int64) string {
	parts := make([]string, len(os))
	for i, o := range os {
		parts[i] = strconv.FormatInt(o, 10)
	}
	return strings.Join(parts, ", ")
}

func partitionProblems(p result.VerificationPartition) string {
	var parts []string
	add := func(n int64, what string, first []int64) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (first at offsets %s)", n, what, offsets(first)))
		}
	}
	add(p.Lost, "lost", p.FirstLost)
	add(p.Duplicated, "duplicated", p.FirstDuplicated)
	add(p.OutOfOrder, "out of order", p.FirstOutOfOrder)
	add(p.Unacknowledged, "unacknowledged", p.FirstUnacknowledged)
	return strings.Join(parts, "; ")
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " / ")
}

// writeTable writes t as a Markdown section.
func writeTable(b *strings.Builder, t *table) {
	if t == nil {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n| %s |\n|%s\n", t.Title, strings.Join(t.Columns, " | "), strings.Repeat(" --- |", len(t.Columns)))
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n + "\n")
	}
}
