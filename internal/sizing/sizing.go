// Package sizing does the capacity arithmetic of kbench size: from a record
// rate, record size, retention, replication and broker count it computes
// throughput, storage, network per broker and partition guidance, and prints
// each figure with its arithmetic. Learn Input and Estimate first; Compute
// turns one into the other, WriteText and WriteJSON print it.
//
// Everything is computed in bytes and seconds; units appear only when parsing
// (ParseSize, ParseRate, ...) and printing, where decimal (KB = 1,000 B) and
// binary (KiB = 1,024 B) readings are shown side by side.
package sizing

import (
	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// Input is what kbench size is asked: a load, how long it is kept and the
// cluster that keeps it.
type Input struct {
	Rate        Rate
	RecordSize  Size
	Retention   Duration
	Replication int      // replicas of every partition, leader included
	Brokers     int      // brokers sharing the topic's replicas evenly
	Consumers   int      // consumer groups, each reading every record once
	Headroom    Headroom // extra storage on top of what retention needs
	// Measured per-partition throughput; nil when unknown. Measured.Sources
	// lists the result documents they came from, if any.
	Measured Measured
	// Cores is the records/s one broker core carried in a kbench run
	// (FromResult); nil when not given.
	Cores *CoreRate
}

// Estimate is Compute's answer. Bytes are not rounded to a unit, only to
// hundredths of a byte (whole bytes from a billion on); rates are per second.
type Estimate struct {
	Input Input

	IngestBytesPerSec      float64 // rate × record size
	ReplicationBytesPerSec float64 // leaders to followers: ingest × (replication − 1)

	StorageBytes            float64 // one copy of the retained data
	ReplicatedBytes         float64 // every replica
	PerBrokerBytes          float64 // ReplicatedBytes / brokers
	ReplicatedHeadroomBytes float64 // ReplicatedBytes × (1 + headroom)
	PerBrokerHeadroomBytes  float64 // PerBrokerBytes × (1 + headroom)

	InPerBrokerBytesPerSec  float64 // (ingest + replication) / brokers
	OutPerBrokerBytesPerSec float64 // (replication + consumers × ingest) / brokers

	Partitions Partitions
	// Cores is the broker CPU the rate needs, from Input.Cores; nil
	// without it.
	Cores *BrokerCores
}

// Compute checks in and does the arithmetic. Errors are the user's to fix
// (userr) and say why the input cannot be sized.
func Compute(in Input) (*Estimate, error) {
	if err := validate(in); err != nil {
		return nil, err
	}
	in = rounded(in)
	if err := checkBounds(in); err != nil {
		return nil, err
	}
	e := &Estimate{Input: in}
	r, b := float64(in.Replication), float64(in.Brokers)
	// Each figure comes from the rounded figures the report shows it
	// computed from (see fig).
	e.IngestBytesPerSec = fig(in.Rate.PerSec * in.RecordSize.Bytes)
	e.ReplicationBytesPerSec = fig(e.IngestBytesPerSec * (r - 1))
	e.StorageBytes = fig(e.IngestBytesPerSec * in.Retention.Seconds)
	e.ReplicatedBytes = fig(e.StorageBytes * r)
	e.PerBrokerBytes = fig(e.ReplicatedBytes / b)
	e.ReplicatedHeadroomBytes = fig(e.ReplicatedBytes * (1 + in.Headroom.Fraction))
	e.PerBrokerHeadroomBytes = fig(e.PerBrokerBytes * (1 + in.Headroom.Fraction))
	// Every broker leads 1/b of the partitions: it takes that share of the
	// producers' bytes and of the followers' fetches, and serves that share
	// of the followers and of every consumer group.
	e.InPerBrokerBytesPerSec = fig((e.IngestBytesPerSec + e.ReplicationBytesPerSec) / b)
	e.OutPerBrokerBytesPerSec = fig((e.ReplicationBytesPerSec + float64(in.Consumers)*e.IngestBytesPerSec) / b)
	if err := checkFigures(e); err != nil {
		return nil, err
	}
	e.Partitions = partitionsFor(in)
	e.Cores = coresFor(in)
	return e, nil
}

// validate is the one place where inputs are cross-checked.
func validate(in Input) error {
	switch {
	case in.Rate.PerSec <= 0:
		return userr.Errorf("rate: missing or 0; %s", units.RateForms)
	case in.RecordSize.Bytes <= 0:
		return userr.Errorf("record size: missing or 0; %s", units.SizeForms)
	case in.Retention.Seconds <= 0:
		return userr.Errorf("retention: missing or 0; %s", units.DurationForms)
	case in.Brokers < 1:
		return userr.Errorf("brokers %d: need at least 1 broker", in.Brokers)
	case in.Replication < 1:
		return userr.Errorf("replication %d: need at least 1 replica (the leader); 3 is usual in production", in.Replication)
	case in.Replication > in.Brokers:
		return userr.Errorf("replication %d is more than %d brokers: Kafka keeps each replica of a partition on a different broker, so replication can be at most the number of brokers; add brokers or lower the replication", in.Replication, in.Brokers)
	case in.Consumers < 0:
		return userr.Errorf("consumers %d: the number of consumer groups cannot be negative", in.Consumers)
	case in.Headroom.Fraction < 0:
		return userr.Errorf("headroom %q: cannot be negative; %s", in.Headroom.Text, headroomForms)
	}
	for _, p := range []*PartitionRate{in.Measured.Producer, in.Measured.Consumer} {
		if p != nil && p.RecordsPerSec <= 0 {
			return userr.Errorf("per-partition rate from %s: must be more than 0 records/s", p.From)
		}
	}
	return nil
}
