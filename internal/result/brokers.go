package result

import "fmt"

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

// LimitOf names what held a repeat's producers back, from both sides: the
// client when kbench was the bound (Generator), nothing when every fixed
// rate was reached, the machine's CPU when the brokers and kbench used
// nearly all of its cpus cores (naming whichever used more), and
// otherwise not the CPU. "" when the repeat has no producer or no broker
// figures to judge by.
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
	if !ok || wall <= 0 {
		return ""
	}
	handlers := fmt.Sprintf("%.0f%% busy on %s", f.HandlerBusyPct, f.Busiest)
	busy := f.HasHandlers && f.HandlerBusyPct >= LimitHandlerBusyPct
	if !f.HasCPU || cpus <= 0 {
		switch {
		case busy:
			return "the brokers' request handlers, " + handlers
		case f.HasHandlers:
			return "not the brokers' request handlers (" + handlers + "): their CPU, disks or the network, which kbench does not measure on a remote cluster"
		}
		return ""
	}
	brokers := f.CPUSeconds / wall
	client := 0.0
	if rep.Process != nil {
		client = rep.Process.CPUSeconds / wall
	}
	used := fmt.Sprintf("the brokers used %.1f and kbench %.1f of the machine's %d cores", brokers, client, cpus)
	switch {
	case brokers+client < limitCPUShare*float64(cpus) && busy:
		return "the brokers' request handlers, " + handlers + " (" + used + ")"
	case brokers+client < limitCPUShare*float64(cpus) && f.HasHandlers:
		return "not the CPU (" + used + ") nor the request handlers (" + handlers + "): the brokers' disks or the network, which kbench does not measure yet"
	case brokers+client < limitCPUShare*float64(cpus):
		return "not the CPU (" + used + "): the brokers' request handlers, their disks or the network, which kbench does not measure yet"
	case brokers >= client:
		return "the brokers' CPU: " + used
	default:
		return "the client's CPU: " + used
	}
}

// BrokerSeries are the brokers' figures of the repeats that ended ok and
// measured them, one value per repeat: what summary.csv averages and
// compare compares. HandlerBusyPct is the busiest broker's, from the
// brokers' own metrics (a local cluster's agents, or cluster.metrics);
// the others are from /proc (a local cluster).
type BrokerSeries struct {
	CPUPerMRec, RSSPeakMiB, WrittenPerRecord []float64
	RecordsPerCore, HandlerBusyPct           []float64
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
