package share

import (
	"math/rand/v2"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// Spec makes a consumer workload read as members of a share group
// (KIP-932, Kafka's queues): any number of clients per partition, each
// record acquired by one member at a time and acknowledged record by
// record. ConsumerSpec.Group names the group.
type Spec struct {
	// Outcome decides how a delivered record is acknowledged, from its
	// offset and its delivery count (1 on the first delivery); nil
	// accepts every record. rng is the client's own.
	Outcome func(rng *rand.Rand, offset int64, delivery int32) Ack
	// Processing is how long a record takes to process before it is
	// acknowledged (a slow consumer); nil: none.
	Processing func(rng *rand.Rand) time.Duration
	// RenewAfter renews a record's acquisition lock each time its
	// processing has taken this long, so that a slow record is not
	// redelivered to another member; 0 never renews.
	RenewAfter time.Duration
	// DeliveryLimit is the group's share.delivery.count.limit: a record
	// released on its last delivery is archived (settled, not accepted).
	DeliveryLimit int32
	// RecordLimit makes ConsumerSpec.MaxPollRecords a strict bound on the
	// records each fetch acquires (Java's share.acquire.mode=record_limit,
	// KIP-1206, Kafka 4.2+): the broker splits batches rather than hand a
	// member more, and the member fetches once per poll, so that it holds
	// at most that many records in flight. Without it the broker may
	// complete a batch past the bound (batch_optimized).
	RecordLimit bool
	// Ledger keeps each record's outcomes for Verify (a few bytes per
	// record).
	Ledger bool
	// OnPoll, if set, is called by client i (0-based) after each poll
	// that settled records, with its totals so far and the poll's time
	// (the drop-in's per-consumer progress lines). Clients call it
	// concurrently.
	OnPoll func(i int, records, bytes int64, at time.Time)
	// OnStall, if set, is called (with ConsumerSpec.Lag) at each lag
	// sample while records wait unread and none was settled for an
	// interval, with what holds them when known: the members were
	// otherwise silent about a group without partitions or a broker gone.
	OnStall func(measure.Stall)
}

// Ack is what a share consumer does with a delivered record.
type Ack uint8

const (
	Accept  Ack = iota // processed: the record is done
	Release            // give it back for redelivery (a processing failure)
	Reject             // unprocessable: the broker archives it
	Renew              // hold the lock while processing on, then accept
)

func (a Ack) String() string {
	return [...]string{"accept", "release", "reject", "renew"}[a]
}

// Result is what a share consumer workload measured beyond a
// consumer's records and bytes (which count accepted records only).
type Result struct {
	Deliveries int64 // records delivered, redeliveries included
	Accepted   int64
	Released   int64 // released for redelivery (those on their last delivery are Archived too)
	Rejected   int64
	Renewed    int64 // lock renewals
	// Archived are records released on their last delivery
	// (share.delivery.count.limit): settled without being processed.
	Archived int64
	// Settled are the records the run counted (its target's): accepted,
	// rejected or archived, each by the member whose acknowledgement
	// settled it first (a record released by one member and accepted by
	// another is the other's). PerMember is each member's, in client
	// order; they sum to Settled. A member's records and bytes
	// (PerClient) are its accepted ones only, each counted once.
	Settled   int64
	PerMember []int64
	// Resettled counts settlements of records already settled (by any
	// member): a redelivery after an acknowledgement the broker never
	// took, such as one sent to a broker that died or after the record's
	// lock ran out. They are acknowledged (and counted in Accepted,
	// Rejected) but not counted toward Settled, records or bytes again.
	Resettled int64
	// Redelivered counts deliveries after a record's first; LockTimeouts
	// those of them that followed no release: the record's lock ran out
	// (or its acknowledgement was lost). Exact with the ledger, per
	// record; without it, redeliveries beyond the releases.
	Redelivered, LockTimeouts int64
	// DeliveryCounts counts deliveries by the record's delivery count
	// (index 1 is first deliveries; the last bucket holds all above).
	DeliveryCounts []int64
	// AckErrors counts acknowledgements the broker refused, by error.
	AckErrors map[string]int64
	// AckLatency is how long acknowledgements waited for the broker's
	// answer (µs): per answer, from the oldest acknowledgement of its
	// partition it answered, since franz-go reports answers per partition.
	AckLatency *measure.Histogram
	// Ledger is each record's outcomes (with Spec.Ledger).
	Ledger *Ledger
	// Verdict is the ledger checked against the topic (Options.Verify).
	Verdict *Verdict
}

// maxDeliveryBucket is the last DeliveryCounts bucket: Kafka allows at
// most 10 deliveries.
const maxDeliveryBucket = 10
