package result

// BrokerFigures are a repeat's brokers' cost set beside its records: what
// summary.csv, the Brokers table and compare show.
type BrokerFigures struct {
	Brokers    int
	CPUSeconds float64 // all brokers
	Records    int64   // acknowledged by the repeat's producers
	// CPUPerMRec is CPU seconds per million records (ok: Records > 0).
	CPUPerMRec float64
	RSSPeakMiB float64 // the largest of one broker
	// WrittenMiB and WrittenPerRecord are storage writes, when /proc gave
	// them (HasWrites); ReplicatedPerRecord is the records' own bytes times
	// their replicas, per record.
	HasWrites           bool
	WrittenMiB          float64
	WrittenPerRecord    float64
	ReplicatedPerRecord float64
}

// BrokerFiguresOf derives rep's broker figures; ok is false when the
// repeat measured no broker (a remote cluster).
func BrokerFiguresOf(rep Repeat) (f BrokerFigures, ok bool) {
	if len(rep.Brokers) == 0 {
		return f, false
	}
	f.Brokers = len(rep.Brokers)
	var peak, written int64
	f.HasWrites = true
	for _, b := range rep.Brokers {
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
	if f.Records > 0 {
		f.CPUPerMRec = f.CPUSeconds / (float64(f.Records) / 1e6)
		f.WrittenPerRecord = float64(written) / float64(f.Records)
		f.ReplicatedPerRecord = float64(replicated) / float64(f.Records)
	}
	return f, true
}
