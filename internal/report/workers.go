package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kbench/kbench/internal/result"
)

// workersTables are a distributed run's tables: each worker's clock, then
// each worker's share of every merged workload, so that a slow or
// generator-bound worker is named. nil for a run of one process.
func workersTables(run *result.PlanRun) []*table {
	if run == nil || run.Distributed == nil {
		return nil
	}
	d := run.Distributed
	clocks := &table{Title: "Workers", Columns: []string{"worker", "host", "clock offset ms", "± ms", "round trip ms"}}
	var skew float64 // the widest disagreement two workers' clocks may have
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range d.Clocks {
		clocks.Rows = append(clocks.Rows, []string{strconv.Itoa(c.Worker), c.Host, num(c.OffsetMs, 1), num(c.UncertaintyMs, 1), num(c.RoundTripMs, 1)})
		clocks.Bad = append(clocks.Bad, false)
		lo, hi = min(lo, c.OffsetMs-c.UncertaintyMs), max(hi, c.OffsetMs+c.UncertaintyMs)
	}
	if len(d.Clocks) > 1 {
		skew = hi - lo
	}
	note := fmt.Sprintf("Run %s: %d workers, coordinated through the cluster's topics for the run; each ran its share of every workload, and every repeat is the exact merge of their slices (counts added, histograms merged). "+
		"Clock offsets are against the leader of the run's control partition (its append times), each within ± its uncertainty; intervals of different workers are one interval when they start within %s of each other.",
		d.RunID, d.Workers, result.WorkerAlignment)
	if d.ControlBytes > 0 && d.ControlSeconds > 0 {
		note += fmt.Sprintf(" The busiest worker wrote %.1f KB to the control topic in %.0f s", float64(d.ControlBytes)/1000, d.ControlSeconds)
		if d.ControlSeconds >= 60 {
			note += fmt.Sprintf(" (%.1f KB per minute)", float64(d.ControlBytes)/1000/d.ControlSeconds*60)
		}
		note += "."
	}
	if len(d.Lost) > 0 {
		note += fmt.Sprintf(" Lost: worker(s) %v; the repeats without their slices are failed and lack their share.", d.Lost)
		for _, w := range d.Lost {
			clocks.Rows = append(clocks.Rows, []string{strconv.Itoa(w), "lost", "", "", ""})
			clocks.Bad = append(clocks.Bad, true)
		}
	}
	if p50 := lowestEndToEndP50(run); skew > 0 && p50 > 0 && skew >= p50/10 {
		note += fmt.Sprintf(" The workers' clocks may disagree by up to %.1f ms, at least a tenth of the lowest end-to-end median here (%.1f ms): end-to-end latency between workers could be off by that much, percentiles included (publish latency is measured on one worker's clock and is not affected).", skew, p50)
	}
	clocks.Notes = append(clocks.Notes, note)

	shares := &table{Title: "Workers' shares", Columns: []string{"scenario", "repeat", "workload", "worker", "records", "records/s", "read records", "read records/s", "CPU s", "p50 ms", "p99 ms", "max ms", "e2e p99 ms", "generator-bound"}}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				for _, s := range w.Workers {
					bound := ""
					if s.GeneratorBound {
						bound = "yes"
					}
					row := []string{sc.Name, strconv.Itoa(rep.Index), w.Name, strconv.Itoa(s.Worker),
						count(s.Records), some(s.RecordsPerSec, 0), count(s.ReadRecords), some(s.ReadRecordsPerSec, 0), some(s.CPUSeconds, 2)}
					row = append(row, pcts(s.Publish)...)
					e2e := ""
					if s.EndToEnd != nil {
						e2e = num(s.EndToEnd.P99Ms, 3)
					}
					shares.Rows = append(shares.Rows, append(row, e2e, bound))
					shares.Bad = append(shares.Bad, s.GeneratorBound)
				}
			}
		}
	}
	if len(shares.Rows) == 0 {
		return []*table{clocks}
	}
	return []*table{clocks, shares}
}

// some is a figure's cell, empty for none.
func some(v float64, prec int) string {
	if v == 0 {
		return ""
	}
	return num(v, prec)
}

// count is a count cell, empty for none.
func count(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// lowestEndToEndP50 is the lowest end-to-end median of the run, in ms (0:
// none measured).
func lowestEndToEndP50(run *result.PlanRun) float64 {
	low := 0.0
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if l := w.EndToEnd; l != nil && l.Count > 0 {
					if ms := float64(l.P50) / 1000; low == 0 || ms < low { // µs, as every latency
						low = ms
					}
				}
			}
		}
	}
	return low
}

// pcts are a worker's publish p50, p99 and max cells (empty: none).
func pcts(p *result.SlicePercentiles) []string {
	if p == nil {
		return []string{"", "", ""}
	}
	return []string{num(p.P50Ms, 3), num(p.P99Ms, 3), num(p.MaxMs, 3)}
}
