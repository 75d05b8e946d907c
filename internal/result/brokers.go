package result

import (
	"fmt"
	"strings"
)

// BrokerFigures are a repeat's brokers' cost set beside its records: what
// summary.csv, the Brokers table and compare show.
type BrokerFigures struct {
	Brokers int
	// HasCPU: the brokers' processes were read from /proc (a local
	// cluster); the CPU, memory and disk figures are theirs.
	HasCPU     bool
	CPUSeconds float64 // all brokers
	Records    int64   // acknowledged by the repeat's producers
	// CPUPerMRec is CPU seconds per million records, RecordsPerCore its
	// inverse as records per CPU second: the records/s one broker core
	// carries (ok: Records > 0 and CPUSeconds > 0).
	CPUPerMRec     float64
	RecordsPerCore float64
	RSSPeakMiB     float64 // the largest of one broker
	// WrittenMiB and WrittenPerRecord are storage writes, when /proc gave
	// them (HasWrites); ReplicatedPerRecord is the records' own bytes times
	// their replicas, per record.
	HasWrites           bool
	WrittenMiB          float64
	WrittenPerRecord    float64
	ReplicatedPerRecord float64
	// HandlerBusyPct is the busiest broker's request handlers' busy share
	// over the repeat, in percent (HasHandlers: an endpoint gave it), and
	// Busiest names that broker.
	HasHandlers    bool
	HandlerBusyPct float64
	Busiest        string
	// DiskBusyPct is the busiest device under the brokers' data: the
	// share of the repeat it had I/O in flight (HasDisk: a local cluster
	// whose data is on a block device), DiskDevice its name.
	HasDisk     bool
	DiskBusyPct float64
	DiskDevice  string
}

// BrokerFiguresOf derives rep's broker figures; ok is false when the
// repeat measured no broker (a remote cluster without cluster.metrics).
func BrokerFiguresOf(rep Repeat) (f BrokerFigures, ok bool) {
	if len(rep.Brokers) == 0 {
		return f, false
	}
	f.Brokers = len(rep.Brokers)
	var peak, written int64
	for _, b := range rep.Brokers {
		if busy, ok := b.Kafka.HandlerBusyPct(); ok && (!f.HasHandlers || busy > f.HandlerBusyPct) {
			f.HasHandlers, f.HandlerBusyPct, f.Busiest = true, busy, b.Name()
		}
		if !b.FromProc() {
			continue // an endpoint only
		}
		if !f.HasCPU {
			f.HasCPU, f.HasWrites = true, true
		}
		f.CPUSeconds += b.CPUSeconds
		peak = max(peak, b.RSSPeakBytes)
		if b.DiskWriteBytes == nil {
			f.HasWrites = false
		} else {
			written += *b.DiskWriteBytes
		}
	}
	if d := busiestDisk(rep.Disks); d != nil {
		f.HasDisk, f.DiskBusyPct, f.DiskDevice = true, d.BusyPct, d.Device
	}
	f.RSSPeakMiB = float64(peak) / (1 << 20)
	f.WrittenMiB = float64(written) / (1 << 20)
	var replicated int64
	for _, w := range rep.Workloads {
		if w.Producer == nil {
			continue
		}
		f.Records += w.Producer.Records
		rf := int64(1)
		if w.Topic != nil && w.Topic.ReplicationFactor > 0 {
			rf = int64(w.Topic.ReplicationFactor)
		}
		replicated += w.Producer.Bytes * rf
	}
	if f.Records > 0 && f.HasCPU {
		f.CPUPerMRec = f.CPUSeconds / (float64(f.Records) / 1e6)
		if f.CPUSeconds > 0 {
			f.RecordsPerCore = float64(f.Records) / f.CPUSeconds
		}
		f.WrittenPerRecord = float64(written) / float64(f.Records)
		f.ReplicatedPerRecord = float64(replicated) / float64(f.Records)
	}
	return f, true
}

// Name is how the report names the broker: "broker 2", or a remote
// endpoint's URL.
func (b BrokerCost) Name() string {
	if b.Endpoint != "" {
		return b.Endpoint
	}
	return fmt.Sprintf("broker %d", b.ID)
}

// FromProc says the entry holds a local broker's /proc figures: not a
// remote endpoint, nor a broker only its agent was read from.
func (b BrokerCost) FromProc() bool {
	return b.Endpoint == "" && (b.Processes > 0 || b.Kafka == nil)
}

// limitCPUShare: the brokers and kbench together used this share of the
// machine's cores, so the CPU was what limited the run.
const limitCPUShare = 0.90

// LimitHandlerBusyPct: a broker's request handlers busy this share of
// the repeat (idle under 30%, where Kafka's operators are told to look)
// are what limited it.
const LimitHandlerBusyPct = 70.0

// LimitDiskBusyPct: a device under the brokers' data with I/O in flight
// this share of the repeat is what limited it.
const LimitDiskBusyPct = 80.0

// LimitLinkBusyPct: the client host's interface carrying this share of
// its link speed is what limited the run.
const LimitLinkBusyPct = 80.0

// LimitOf names what held a repeat's producers back, from both sides: the
// client when kbench was the bound (Generator), nothing when every fixed
// rate was reached, the machine's CPU when the brokers, kbench and its
// network proxies used nearly all of its cpus cores (naming whichever
// used most), else the brokers' request handlers, their disks or the
// network when one was busy past its bound, and otherwise none of them,
// each with the figure that shows it. "" when the repeat has no producer
// or nothing of the brokers' side to judge by.
func LimitOf(rep Repeat, cpus int) string {
	var wall float64
	reached, fixed := true, false
	for _, w := range rep.Workloads {
		p := w.Producer
		if p == nil {
			continue
		}
		if g := w.Generator; g != nil && g.Bound && len(g.Reasons) > 0 {
			return "the client: " + g.Reasons[0]
		}
		wall = max(wall, p.DurationSeconds)
		if p.TargetRate > 0 {
			fixed = true
			reached = reached && p.RecordsPerSec >= 0.95*p.TargetRate
		} else {
			reached = false
		}
	}
	if fixed && reached {
		return "nothing: every rate asked was reached"
	}
	f, ok := BrokerFiguresOf(rep)
	disk, link := busiestDisk(rep.Disks), rep.Network
	if wall <= 0 || (!ok && disk == nil && link == nil) {
		return ""
	}
	var not []string // what was measured and did not limit
	if f.HasCPU && cpus > 0 {
		brokers, client, proxies := f.CPUSeconds/wall, 0.0, 0.0
		if rep.Process != nil {
			client = rep.Process.CPUSeconds / wall
		}
		if link != nil && link.ProxyCPUSeconds != nil {
			proxies = *link.ProxyCPUSeconds / wall
		}
		used := fmt.Sprintf("the brokers used %.1f and kbench %.1f of the machine's %d cores", brokers, client, cpus)
		if proxies > 0 {
			used = fmt.Sprintf("the brokers used %.1f, kbench %.1f and its network proxies %.1f of the machine's %d cores", brokers, client, proxies, cpus)
		}
		if brokers+client+proxies >= limitCPUShare*float64(cpus) {
			switch {
			case proxies > brokers && proxies > client:
				return "the network between: kbench's network proxies, on the same cores (" + used + ")"
			case brokers >= client:
				return "the brokers' CPU: " + used
			default:
				return "the client's CPU: " + used
			}
		}
		not = append(not, "the CPU ("+used+")")
	}
	if f.HasHandlers {
		handlers := fmt.Sprintf("%.0f%% busy on %s", f.HandlerBusyPct, f.Busiest)
		if f.HandlerBusyPct >= LimitHandlerBusyPct {
			return "the brokers' request handlers, " + handlers + andNot(not)
		}
		not = append(not, "the brokers' request handlers ("+handlers+")")
	}
	if disk != nil {
		busy := fmt.Sprintf("%s busy %.0f%% of the repeat, its busiest second %.0f%%", disk.Device, disk.BusyPct, disk.PeakBusyPct)
		if disk.BusyPct >= LimitDiskBusyPct {
			return "the brokers' disks: " + busy + andNot(not)
		}
		not = append(not, "the brokers' disks ("+busy+")")
	}
	if link != nil && link.BusyPct != nil {
		carried := fmt.Sprintf("%s carried %.0f%% of its %.0f Mb/s", link.Interface, *link.BusyPct, link.LinkMbps)
		if *link.BusyPct >= LimitLinkBusyPct {
			return "the network: " + carried + andNot(not)
		}
		not = append(not, "the network ("+carried+")")
	}
	var unmeasured []string
	if !f.HasCPU {
		unmeasured = append(unmeasured, "the brokers' CPU")
	}
	if !f.HasHandlers {
		unmeasured = append(unmeasured, "the brokers' request handlers")
	}
	if disk == nil {
		unmeasured = append(unmeasured, "the brokers' disks")
	}
	if link == nil || (link.BusyPct == nil && link.ProxyCPUSeconds == nil) {
		unmeasured = append(unmeasured, "the network")
	}
	said := "not " + strings.Join(not, ", nor ")
	if len(unmeasured) > 0 {
		return said + ": " + joinOr(unmeasured) + ", which kbench did not measure here"
	}
	return said + ": the clients' own pace (their in-flight requests, linger and batch size against the round trip)"
}

// andNot adds what was measured and did not limit, in parentheses.
func andNot(not []string) string {
	if len(not) == 0 {
		return ""
	}
	return "; not " + strings.Join(not, ", nor ")
}

// joinOr joins words as "a, b or c".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// busiestDisk is the device with the most I/O in flight (nil: none).
func busiestDisk(disks []Disk) *Disk {
	var b *Disk
	for i := range disks {
		if b == nil || disks[i].BusyPct > b.BusyPct {
			b = &disks[i]
		}
	}
	return b
}

// BrokerSeries are the brokers' figures of the repeats that ended ok and
// measured them, one value per repeat: what summary.csv averages and
// compare compares. HandlerBusyPct is the busiest broker's, from the
// brokers' own metrics (a local cluster's agents, or cluster.metrics);
// the others are from /proc (a local cluster).
type BrokerSeries struct {
	CPUPerMRec, RSSPeakMiB, WrittenPerRecord []float64
	RecordsPerCore, HandlerBusyPct           []float64
	DiskBusyPct                              []float64
}

// BrokerSeriesOf takes the series from reps.
func BrokerSeriesOf(reps []Repeat) BrokerSeries {
	var s BrokerSeries
	for _, rep := range reps {
		f, ok := BrokerFiguresOf(rep)
		if !ok || rep.Status != StatusOK {
			continue
		}
		if f.HasHandlers {
			s.HandlerBusyPct = append(s.HandlerBusyPct, f.HandlerBusyPct)
		}
		if f.HasDisk {
			s.DiskBusyPct = append(s.DiskBusyPct, f.DiskBusyPct)
		}
		if !f.HasCPU {
			continue
		}
		s.RSSPeakMiB = append(s.RSSPeakMiB, f.RSSPeakMiB)
		if f.Records > 0 {
			s.CPUPerMRec = append(s.CPUPerMRec, f.CPUPerMRec)
			if f.RecordsPerCore > 0 {
				s.RecordsPerCore = append(s.RecordsPerCore, f.RecordsPerCore)
			}
			if f.HasWrites {
				s.WrittenPerRecord = append(s.WrittenPerRecord, f.WrittenPerRecord)
			}
		}
	}
	return s
}
