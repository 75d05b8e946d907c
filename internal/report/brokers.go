package report

import (
	"fmt"
	"strconv"

	"github.com/kbench/kbench/internal/result"
)

// BrokerColumns are the brokers table's columns.
var BrokerColumns = []string{"scenario", "repeat", "brokers", "broker cpu s", "cpu s per M records", "records per cpu s", "peak rss MiB", "disk written MiB", "written B per record", "record B × replicas", "limited by"}

// brokerTable is what a local cluster's brokers spent, one row per
// repeat: their CPU beside the records acknowledged (what one broker core
// carries), memory, and bytes written to storage per record beside the
// record's own bytes times its replicas (write amplification). nil when
// no repeat measured its brokers (a remote cluster).
func brokerTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	t := &table{Title: "Brokers", Columns: BrokerColumns}
	cpus := 0
	if run.Environment != nil {
		cpus = run.Environment.CPUs
	}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			f, ok := result.BrokerFiguresOf(rep)
			if !ok {
				continue
			}
			limit := "–"
			if l := result.LimitOf(rep, cpus); l != "" {
				limit = l
			}
			row := []string{sc.Name, strconv.Itoa(rep.Index), strconv.Itoa(f.Brokers), fmt.Sprintf("%.1f", f.CPUSeconds), "–", "–", fmt.Sprintf("%.0f", f.RSSPeakMiB), "–", "–", "–", limit}
			if f.Records > 0 {
				row[4] = fmt.Sprintf("%.2f", f.CPUPerMRec)
				if f.CPUSeconds > 0 {
					row[5] = fmt.Sprintf("%.0f", float64(f.Records)/f.CPUSeconds)
				}
				row[9] = fmt.Sprintf("%.0f", f.ReplicatedPerRecord)
			}
			if f.HasWrites {
				row[7] = fmt.Sprintf("%.1f", f.WrittenMiB)
				if f.Records > 0 {
					row[8] = fmt.Sprintf("%.0f", f.WrittenPerRecord)
				}
			}
			t.Rows = append(t.Rows, row)
			t.Bad = append(t.Bad, false)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "What the local cluster's broker processes used during each repeat, read from /proc every second: CPU seconds (user and system) of all brokers together, per million records acknowledged and as records per CPU second (what one broker core carries); the largest resident memory of one broker; bytes written to storage (page-cache writeback, so a write may land after its repeat) per record, beside the records' own bytes times their replicas. Brokers share the machine with kbench: limited by says what held the producers back: the client when kbench was the bound, the machine's CPU when the brokers and kbench together used 90% of its cores or more (naming which used more), otherwise not the CPU.")
	return t
}
