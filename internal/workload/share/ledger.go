package share

import (
	"sort"

	"github.com/kbench/kbench/internal/workload/engine"
)

// offsetLedger is one partition's record outcomes, indexed from base.
type offsetLedger struct {
	base   int64
	states []recordOutcome
}

// recordOutcome is what happened to one record: how often it was
// accepted, released and rejected, and whether it was archived.
type recordOutcome struct {
	accepted, released, rejected uint8
	lastDelivery                 uint8 // the highest delivery count seen
	archived                     bool
}

func (l *offsetLedger) at(offset int64) *recordOutcome {
	if len(l.states) == 0 {
		l.base = offset
	}
	if offset < l.base {
		grown := make([]recordOutcome, l.base-offset+int64(len(l.states)))
		copy(grown[l.base-offset:], l.states)
		l.states, l.base = grown, offset
	}
	i := offset - l.base
	if i >= int64(len(l.states)) {
		l.states = append(l.states, make([]recordOutcome, i+1-int64(len(l.states)))...)
	}
	return &l.states[i]
}

func (l *offsetLedger) note(offset int64, out Ack, archived bool, delivery int32) {
	o := l.at(offset)
	o.lastDelivery = uint8(min(max(int32(o.lastDelivery), delivery), 255))
	switch out {
	case Accept, Renew:
		o.accepted = sat(o.accepted)
	case Release:
		o.released = sat(o.released)
		o.archived = o.archived || archived
	case Reject:
		o.rejected = sat(o.rejected)
	}
}

func sat(n uint8) uint8 { return min(n, 254) + 1 }

// Ledger is every member's record outcomes, merged per partition.
type Ledger struct {
	parts map[engine.TopicPartition]*offsetLedger
}

func mergeLedgers(members []*shareMember) *Ledger {
	out := &Ledger{parts: map[engine.TopicPartition]*offsetLedger{}}
	for _, m := range members {
		for tp, l := range m.seen {
			m := out.parts[tp]
			if m == nil {
				m = &offsetLedger{}
				out.parts[tp] = m
			}
			for i, o := range l.states {
				if o == (recordOutcome{}) {
					continue
				}
				t := m.at(l.base + int64(i))
				t.accepted = uint8(min(int(t.accepted)+int(o.accepted), 255))
				t.released = uint8(min(int(t.released)+int(o.released), 255))
				t.rejected = uint8(min(int(t.rejected)+int(o.rejected), 255))
				t.archived = t.archived || o.archived
				t.lastDelivery = max(t.lastDelivery, o.lastDelivery)
			}
		}
	}
	return out
}

// Verdict is what became of every record in a range of offsets.
type Verdict struct {
	Records       int64 // offsets checked
	Accepted      int64 // accepted exactly once
	AcceptedTwice int64 // accepted more than once: delivered twice as done (a duplicate)
	Rejected      int64 // rejected (and never accepted)
	Archived      int64 // released on their last delivery (and never accepted)
	// SettledByBroker were settled by no member, yet lie below the
	// group's share start offset after the run: the broker archived them
	// after deliveries no member processed (a delivery lost with a broker
	// that died, a lock that ran out on the last delivery), or they are
	// offsets without a record (transaction markers). Not a failure.
	SettledByBroker int64
	// Unsettled were never accepted, rejected or archived, by a member or
	// by the broker: lost, or still waiting when the run ended. Missing
	// lists the first of them.
	Unsettled int64
	Missing   []PartitionOffset
	// BrokerLag is the broker's count of records after the group's start
	// offset it still holds unsettled, when it gives one (Kafka 4.2+); -1
	// when not known. Records members settled whose acknowledgements the
	// broker never took are redelivered to the group's next member.
	BrokerLag int64
	// Partial: the run was interrupted, and only the offsets up to the
	// last record read (per partition) were checked.
	Partial bool
}

// PartitionOffset names one record.
type PartitionOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// Verify checks the offsets from start to end (exclusive) of each
// partition, as listed after the run: every record must be settled once.
// brokerStart is the group's share start offset of each partition after
// the run (nil, or a partition absent or -1: not known): a record below
// it that no member settled was settled by the broker.
func (l *Ledger) Verify(start, end, brokerStart map[string]map[int32]int64) Verdict {
	v := Verdict{BrokerLag: -1}
	var tps []engine.TopicPartition
	for t, ps := range end {
		for p := range ps {
			tps = append(tps, engine.TopicPartition{Topic: t, Partition: p})
		}
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	for _, tp := range tps {
		led := l.parts[tp]
		for off := start[tp.Topic][tp.Partition]; off < end[tp.Topic][tp.Partition]; off++ {
			v.Records++
			var o recordOutcome
			if led != nil && off >= led.base && off-led.base < int64(len(led.states)) {
				o = led.states[off-led.base]
			}
			switch {
			case o.accepted == 1:
				v.Accepted++
			case o.accepted > 1:
				v.AcceptedTwice++
			case o.rejected > 0:
				v.Rejected++
			case o.archived:
				v.Archived++
			case brokerStart[tp.Topic] != nil && off < brokerStart[tp.Topic][tp.Partition]:
				v.SettledByBroker++
			default:
				v.Unsettled++
				if len(v.Missing) < 10 {
					v.Missing = append(v.Missing, PartitionOffset{tp.Topic, tp.Partition, off})
				}
			}
		}
	}
	return v
}

// readEnds is, per partition, one past the highest offset a member was
// delivered: the end of what an interrupted run read.
func (l *Ledger) readEnds() map[string]map[int32]int64 {
	out := map[string]map[int32]int64{}
	for tp, led := range l.parts {
		if out[tp.Topic] == nil {
			out[tp.Topic] = map[int32]int64{}
		}
		out[tp.Topic][tp.Partition] = led.base + int64(len(led.states))
	}
	return out
}

// lockTimeouts counts the redeliveries no release asked for: per record,
// its deliveries after the first beyond the releases that preceded them.
func (l *Ledger) lockTimeouts() int64 {
	var n int64
	for _, led := range l.parts {
		for _, o := range led.states {
			if o.lastDelivery > 1 {
				redelivered := int64(o.lastDelivery) - 1
				n += max(redelivered-min(int64(o.released), redelivered), 0)
			}
		}
	}
	return n
}
