package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// BrokerColumns are the brokers table's columns.
var BrokerColumns = []string{"scenario", "repeat", "brokers", "broker cpu s", "cpu s per M records", "records per cpu s", "peak rss MiB", "disk written MiB", "written B per record", "record B × replicas", "handlers busy %", "disk busy %", "limited by"}

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
	kafka, proc, disk := false, false, false
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
			row := []string{sc.Name, strconv.Itoa(rep.Index), strconv.Itoa(f.Brokers), "–", "–", "–", "–", "–", "–", "–", "–", "–", limit}
			if f.HasCPU {
				proc = true
				row[3], row[6] = fmt.Sprintf("%.1f", f.CPUSeconds), fmt.Sprintf("%.0f", f.RSSPeakMiB)
			}
			if f.HasHandlers {
				row[10] = fmt.Sprintf("%.0f", f.HandlerBusyPct)
			}
			if f.HasDisk {
				disk = true
				row[11] = fmt.Sprintf("%.0f", f.DiskBusyPct)
			}
			for _, u := range rep.DisksUnjudged {
				if !said[u] {
					said[u] = true
					t.Notes = append(t.Notes, "Disk busy % leaves out "+u+".")
				}
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
	if disk {
		t.Notes = append(t.Notes, fmt.Sprintf("Disk busy %% is the busiest block device under the brokers' data directories: the share of the repeat it had I/O in flight (/proc/diskstats); %.0f%% or more names the disks as the limit. A device that serves requests in parallel (an SSD) can show 100%% and still take more, so read it beside the bytes written.", result.LimitDiskBusyPct))
	}
	if !proc {
		return t
	}
	t.Notes = append(t.Notes, "What the local cluster's broker processes used during each repeat, read from /proc every second: CPU seconds (user and system) of all brokers together, per million records acknowledged and as records per CPU second (what one broker core carries); the largest resident memory of one broker; bytes written to storage (page-cache writeback, so a write may land after its repeat) per record, beside the records' own bytes times their replicas. Brokers share the machine with kbench: limited by says what held the producers back: the client when kbench was the bound, the machine's CPU when the brokers, kbench and its network proxies together used 90% of its cores or more (naming which used most), else the brokers' request handlers, their disks or the network when one was past its bound, otherwise what was measured and did not limit.")
	return t
}

// brokerCharts are a repeat's brokers over time, drawn under its
// workloads on the scenario's clock and marked with its faults: each
// broker's CPU (cores used, from /proc) and its request handlers' busy
// share (from its own metrics).
type brokerCharts struct {
	CPU   *brokerSeries `json:"cpu,omitempty"`
	Busy  *brokerSeries `json:"busy,omitempty"`
	Marks []timeMark    `json:"marks,omitempty"`
}

// brokerSeries is one figure of every broker, a line each: T is each
// step's end in seconds from the chart's origin, Values[b] broker
// Names[b]'s, null where it was not read.
type brokerSeries struct {
	Names  []string     `json:"names"`
	T      []float64    `json:"t"`
	Values [][]*float64 `json:"values"`
}

// brokerChartsOf is rep's brokers' series; nil when it kept none (a
// result from before kbench kept them, or brokers not measured).
func brokerChartsOf(rep result.Repeat) *brokerCharts {
	var cpu, busy []namedSteps
	for _, b := range rep.Brokers {
		if b.CPUCores != nil {
			cpu = append(cpu, namedSteps{b.Name(), b.CPUCores})
		}
		if b.Kafka != nil && b.Kafka.HandlerBusy != nil {
			busy = append(busy, namedSteps{b.Name(), b.Kafka.HandlerBusy})
		}
	}
	if len(cpu) == 0 && len(busy) == 0 {
		return nil
	}
	t0 := chartOrigin(rep)
	return &brokerCharts{CPU: brokerLines(cpu, t0), Busy: brokerLines(busy, t0), Marks: faultMarks(rep, t0)}
}

// within keeps the steps that end from one step before from to one step
// after to: the brokers are read from the repeat's start, so a rate
// search's are minutes of probes before the runs the workloads' charts
// show, and they must not widen the scenario's range.
func (b *brokerCharts) within(from, to float64) {
	if b == nil {
		return
	}
	for _, s := range []*brokerSeries{b.CPU, b.Busy} {
		if s == nil || len(s.T) == 0 {
			continue
		}
		step := 1.0
		if len(s.T) > 1 {
			step = s.T[1] - s.T[0]
		}
		lo, hi := 0, len(s.T)
		for lo < hi && s.T[lo] < from-step {
			lo++
		}
		for hi > lo && s.T[hi-1] > to+step {
			hi--
		}
		s.T = s.T[lo:hi]
		for i := range s.Values {
			s.Values[i] = s.Values[i][lo:hi]
		}
	}
}

type namedSteps struct {
	name  string
	steps *result.Steps
}

// brokerLines puts brokers' steps on one x: the earliest start's steps
// (one sampler times every broker, so they share it; another start is
// placed on its nearest step).
func brokerLines(ss []namedSteps, t0 time.Time) *brokerSeries {
	if len(ss) == 0 {
		return nil
	}
	base, step := ss[0].steps.Start, ss[0].steps.Step
	for _, s := range ss {
		if s.steps.Start.Before(base) {
			base = s.steps.Start
		}
	}
	if step <= 0 {
		return nil
	}
	offsets, n := make([]int, len(ss)), 0
	for i, s := range ss {
		offsets[i] = int(math.Round(s.steps.Start.Sub(base).Seconds() / step))
		n = max(n, offsets[i]+len(s.steps.Values))
	}
	out := &brokerSeries{}
	first := &result.Steps{Start: base, Step: step}
	for i := range n {
		out.T = append(out.T, round3(first.At(i, t0)))
	}
	for i, s := range ss {
		vs := make([]*float64, n)
		copy(vs[offsets[i]:], s.steps.Values)
		out.Names = append(out.Names, s.name)
		out.Values = append(out.Values, vs)
	}
	return out
}
