package report

import (
	"fmt"
	"strconv"

	"github.com/kbench/kbench/internal/result"
)

// BrokerColumns are the brokers table's columns.
var BrokerColumns = []string{"scenario", "repeat", "brokers", "broker cpu s", "cpu s per M records", "records per cpu s", "peak rss MiB", "disk written MiB", "written B per record", "record B × replicas", "handlers busy %", "limited by"}

// brokerTable is what a local cluster's brokers spent, one row per
// repeat: their CPU beside the records acknowledged (what one broker core
// carries), memory, and bytes written to storage per record beside the
// record's own bytes times its replicas (write amplification), and from
// the brokers' own metrics (a local broker's agent, or a remote cluster's
// cluster.metrics) the busiest broker's request handlers' busy share.
// nil when no repeat measured its brokers.
func brokerTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	t := &table{Title: "Brokers", Columns: BrokerColumns}
	cpus := 0
	if run.Environment != nil {
		cpus = run.Environment.CPUs
	}
	said := map[string]bool{} // what an endpoint lacks, said once
	kafka, proc := false, false
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
			row := []string{sc.Name, strconv.Itoa(rep.Index), strconv.Itoa(f.Brokers), "–", "–", "–", "–", "–", "–", "–", "–", limit}
			if f.HasCPU {
				proc = true
				row[3], row[6] = fmt.Sprintf("%.1f", f.CPUSeconds), fmt.Sprintf("%.0f", f.RSSPeakMiB)
			}
			if f.HasHandlers {
				row[10] = fmt.Sprintf("%.0f", f.HandlerBusyPct)
			}
			bad := false
			for _, b := range rep.Brokers {
				if b.Kafka == nil {
					continue
				}
				kafka = true
				lines := b.Kafka.Lacks
				if b.Kafka.Error != "" {
					bad = true
					lines = append([]string{b.Kafka.Error}, lines...)
				}
				for _, l := range lines {
					if !said[l] {
						said[l] = true
						t.Notes = append(t.Notes, l+".")
					}
				}
			}
			if f.Records > 0 && f.HasCPU {
				row[4] = fmt.Sprintf("%.2f", f.CPUPerMRec)
				if f.CPUSeconds > 0 {
					row[5] = fmt.Sprintf("%.0f", float64(f.Records)/f.CPUSeconds)
				}
				row[9] = fmt.Sprintf("%.0f", f.ReplicatedPerRecord)
			}
			if f.HasCPU && f.HasWrites {
				row[7] = fmt.Sprintf("%.1f", f.WrittenMiB)
				if f.Records > 0 {
					row[8] = fmt.Sprintf("%.0f", f.WrittenPerRecord)
				}
			}
			t.Rows = append(t.Rows, row)
			t.Bad = append(t.Bad, bad)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	if kafka {
		t.Notes = append(t.Notes, fmt.Sprintf("From the brokers' own metrics (their Prometheus endpoints, read at each repeat's start, every second and at its end): handlers busy %% is the busiest broker's request handlers' busy share over the repeat (from Kafka's RequestHandlerAvgIdlePercent meter; %.0f%% or more names them as the limit). result.json holds each broker's bytes and messages in, request times, network processors' idle share, under-replicated and offline partitions and ISR changes.", result.LimitHandlerBusyPct))
	}
	if !proc {
		return t
	}
	t.Notes = append(t.Notes, "What the local cluster's broker processes used during each repeat, read from /proc every second: CPU seconds (user and system) of all brokers together, per million records acknowledged and as records per CPU second (what one broker core carries); the largest resident memory of one broker; bytes written to storage (page-cache writeback, so a write may land after its repeat) per record, beside the records' own bytes times their replicas. Brokers share the machine with kbench: limited by says what held the producers back: the client when kbench was the bound, the machine's CPU when the brokers and kbench together used 90% of its cores or more (naming which used more), otherwise not the CPU.")
	return t
}
