package report

import (
	"fmt"
	"strconv"

	"github.com/kbench/kbench/internal/result"
)

// TierColumns are the tiered-storage table's columns.
var TierColumns = []string{"scenario", "repeat", "readers", "topic", "records/s", "MiB/s", "from remote tier MiB", "from local segments MiB", "copied to remote MiB", "fetch mean ms", "fetch p99 ms"}

// tierTable is, on brokers with remote storage (tiered storage), each
// consume workload's read rate beside where its topic's bytes came from:
// the remote tier or local segments (the brokers' own metrics, summed
// over the brokers), with the brokers' consumer fetch times over the
// repeat. nil when no repeat's brokers had remote storage.
func tierTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	t := &table{Title: "Tiered storage", Columns: TierColumns}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			remote := false
			for _, b := range rep.Brokers {
				remote = remote || b.Kafka != nil && (b.Kafka.RemoteFetchBytes != nil || b.Kafka.RemoteCopyBytes != nil)
			}
			if !remote {
				continue
			}
			mean, p99 := fetchTimes(rep.Brokers)
			for _, w := range rep.Workloads {
				if w.Consumer == nil || w.Producer != nil || w.Topic == nil {
					continue
				}
				fromRemote, fromLocal, copied := tierBytes(rep.Brokers, w.Topic.Name)
				t.Rows = append(t.Rows, []string{sc.Name, strconv.Itoa(rep.Index), w.Name, w.Topic.Name,
					fmt.Sprintf("%.0f", w.Consumer.RecordsPerSec), fmt.Sprintf("%.1f", w.Consumer.MiBPerSec),
					mib(fromRemote), mib(fromLocal), mib(copied), mean, p99})
				t.Bad = append(t.Bad, false)
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "From the brokers' own metrics, summed over the brokers: the bytes each topic's reads took from the remote tier (RemoteFetchBytesPerSec) and from local segments (BytesOutPerSec less those), and those copied to the remote tier (RemoteCopyBytesPerSec), over the whole repeat: readers of one topic in one repeat share its figures. Fetch times are the brokers' consumer fetch requests over the repeat (all topics): mean weighted by requests, the highest broker's p99.")
	return t
}

// tierBytes sums a topic's bytes over the brokers.
func tierBytes(brokers []result.BrokerCost, topic string) (fromRemote, fromLocal, copied float64) {
	for _, b := range brokers {
		if b.Kafka == nil {
			continue
		}
		tb := b.Kafka.Topics[topic]
		if tb == nil {
			continue
		}
		if tb.RemoteFetchBytes != nil {
			fromRemote += *tb.RemoteFetchBytes
		}
		if tb.RemoteCopyBytes != nil {
			copied += *tb.RemoteCopyBytes
		}
		fromLocal += tb.LocalReadBytes()
	}
	return fromRemote, fromLocal, copied
}

// fetchTimes are the brokers' consumer fetch times: the mean over every
// request, and the highest p99.
func fetchTimes(brokers []result.BrokerCost) (mean, p99 string) {
	mean, p99 = "–", "–"
	var sum, n, top float64
	seen := false
	for _, b := range brokers {
		if b.Kafka == nil || b.Kafka.Fetch == nil || b.Kafka.Fetch.Total == nil {
			continue
		}
		f := b.Kafka.Fetch
		if f.Total.Mean != nil && f.Requests != nil {
			sum += *f.Total.Mean * *f.Requests
			n += *f.Requests
		}
		if f.Total.P99 != nil && (!seen || *f.Total.P99 > top) {
			top, seen = *f.Total.P99, true
		}
	}
	if n > 0 {
		mean = fmt.Sprintf("%.1f", sum/n)
	}
	if seen {
		p99 = fmt.Sprintf("%.0f", top)
	}
	return mean, p99
}

func mib(b float64) string { return fmt.Sprintf("%.1f", b/(1<<20)) }
