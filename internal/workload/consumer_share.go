package workload

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
)

// ShareSpec makes a consumer workload read as members of a share group
// (KIP-932, Kafka's queues): any number of clients per partition, each
// record acquired by one member at a time and acknowledged record by
// record. ConsumerSpec.Group names the group.
type ShareSpec struct {
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

// ShareResult is what a share consumer workload measured beyond a
// consumer's records and bytes (which count accepted records only).
type ShareResult struct {
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
	// Ledger is each record's outcomes (with ShareSpec.Ledger).
	Ledger *ShareLedger
	// Verdict is the ledger checked against the topic (ShareConsume.Verify).
	Verdict *ShareVerdict
}

// maxDeliveryBucket is the last DeliveryCounts bucket: Kafka allows at
// most 10 deliveries.
const maxDeliveryBucket = 10

// shareState is one share client's counts (poll loop only).
type shareState struct {
	res  ShareResult
	rng  *rand.Rand
	seen map[topicPartition]*offsetLedger // this client's ledger
	// settled caches the run's settled offsets per partition (settledBits).
	settled map[topicPartition]*offsetBits

	// ackMu guards unanswered and ackLat: the poll loop notes when a
	// partition's acknowledgements began waiting, the ack callback
	// (another goroutine) records how long they waited.
	ackMu      sync.Mutex
	unanswered map[topicPartition]time.Time
	ackLat     *measure.Histogram
}

func newShareState(seed uint64, ledger bool) *shareState {
	s := &shareState{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		unanswered: map[topicPartition]time.Time{}, ackLat: measure.NewHistogram(), settled: map[topicPartition]*offsetBits{},
		res: ShareResult{DeliveryCounts: make([]int64, maxDeliveryBucket+1), AckErrors: map[string]int64{}}}
	if ledger {
		s.seen = map[topicPartition]*offsetLedger{}
	}
	return s
}

// handleShare accounts one poll of a share consumer: each record is
// processed, acknowledged as the spec decides, and counted once settled
// (accepted, rejected or archived). Records past the run's target, or
// polled after it ended, are released for others.
func (c *consumerClient) handleShare(fs kgo.Fetches, polled time.Time) error {
	sp := c.cr.spec.Share
	st := c.share
	since := c.cr.start.Add(-backlogSkew).UnixNano()
	var bytes, latSum, latMax, latN, taken int64
	var err error
	fs.EachError(func(topic string, partition int32, e error) {
		switch {
		case err != nil:
		case shareGroupsRefused(e):
			// franz-go retries a refused heartbeat for ever: the run
			// would wait for records that never come.
			err = errNoShareGroups(refusedShareGroups)
		default:
			err = c.fetchError(topic, partition, e)
		}
	})
	if err != nil {
		return err
	}
	now := polled
	defer c.acksWaiting(fs)
	fs.EachRecord(func(r *kgo.Record) {
		if c.cr.runCtx.Err() != nil {
			r.Ack(kgo.AckRelease) // past the run's end: another member's
			return
		}
		tp := topicPartition{r.Topic, r.Partition}
		delivery := r.DeliveryCount()
		st.res.Deliveries++
		st.res.DeliveryCounts[min(int(delivery), maxDeliveryBucket)]++
		if delivery > 1 {
			st.res.Redelivered++
		}
		out := Accept
		if sp.Outcome != nil {
			out = sp.Outcome(st.rng, r.Offset, delivery)
		}
		if sp.Processing != nil {
			c.process(r, sp.Processing(st.rng), sp.RenewAfter, out == Renew)
			now = time.Now()
		}
		archived := out == Release && sp.DeliveryLimit > 0 && delivery >= sp.DeliveryLimit
		settled := out != Release || archived
		// first: no member settled this record before; a record settled
		// again (redelivered after an acknowledgement the broker never
		// took) is acknowledged as decided but counted once.
		first := settled && c.settledBits(tp).add(r.Offset)
		if first && c.cr.claim(1, now) == 0 {
			c.settledBits(tp).remove(r.Offset)
			r.Ack(kgo.AckRelease) // over the target
			return
		}
		switch {
		case first:
			st.res.Settled++
		case settled:
			st.res.Resettled++
		}
		switch out {
		case Accept, Renew:
			r.Ack(kgo.AckAccept)
			st.res.Accepted++
			if !first {
				break // counted when first settled
			}
			taken++
			bytes += int64(len(r.Key) + len(r.Value))
			if c.latency {
				sent, header := sentNanos(r)
				if header {
					c.fromHeader++
				} else {
					c.fromTimestamp++
				}
				if sent < since {
					c.backlog++
					break
				}
				us := (polled.UnixNano() - sent) / 1000
				c.latencyHist().Record(us)
				if us >= 0 {
					latSum += us
					latMax = max(latMax, us)
					latN++
					if c.cr.ivHist != nil {
						c.pollLats = append(c.pollLats, us)
					}
				}
			}
		case Release:
			r.Ack(kgo.AckRelease)
			st.res.Released++
			if archived {
				st.res.Archived++
			}
		case Reject:
			r.Ack(kgo.AckReject)
			st.res.Rejected++
		}
		if st.seen != nil {
			st.ledger(tp).note(r.Offset, out, archived, delivery)
		}
		if first {
			c.cr.lastRecv.Store(now.UnixNano())
		}
	})
	if taken > 0 {
		c.cr.taken(now.UnixNano())
		c.records += taken
		c.bytes += bytes
		if sp.OnPoll != nil {
			sp.OnPoll(c.id, c.records, c.bytes, now)
		}
		c.window.AddStats(measure.WindowStats{Count: taken, Bytes: bytes, LatSumUs: latSum, LatMaxUs: latMax, LatCount: latN})
	}
	if len(c.pollLats) > 0 {
		c.cr.ivHist.recordAll(c.pollLats)
		c.pollLats = c.pollLats[:0]
	}
	return nil
}

// process holds the record for d, the time its processing takes,
// renewing its lock every renewAfter (or once, for a Renew outcome) so
// that it is not redelivered meanwhile.
func (c *consumerClient) process(r *kgo.Record, d, renewAfter time.Duration, renew bool) {
	if renew {
		r.Ack(kgo.AckRenew)
		c.share.res.Renewed++
	}
	for renewAfter > 0 && d > renewAfter {
		c.spend(renewAfter)
		d -= renewAfter
		r.Ack(kgo.AckRenew)
		c.share.res.Renewed++
	}
	c.spend(d)
}

// maxProcessingCredit bounds how far a reader's processing clock may lag
// behind the wall clock and still be caught up: a timer that woke late
// shortens the next records' waits, but a reader that was idle longer
// (waiting for records) starts afresh.
const maxProcessingCredit = 50 * time.Millisecond

// spend takes d of processing time on the reader's own clock: it sleeps
// until the clock's new end, so that records of 1 ms take 1 ms each on
// average even where a timer wakes late (a loaded machine oversleeps a
// 1 ms timer by more than the record's time).
func (c *consumerClient) spend(d time.Duration) {
	now := time.Now()
	if c.procAt.Before(now.Add(-maxProcessingCredit)) {
		c.procAt = now
	}
	c.procAt = c.procAt.Add(d)
	wait := c.procAt.Sub(now)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.cr.runCtx.Done():
	}
}

// settledBits is the run's settled offsets of a partition, kept per
// client so that the run's map is asked once per partition.
func (c *consumerClient) settledBits(tp topicPartition) *offsetBits {
	st := c.share
	b := st.settled[tp]
	if b == nil {
		b = c.cr.settled.part(tp)
		st.settled[tp] = b
	}
	return b
}

func (s *shareState) ledger(tp topicPartition) *offsetLedger {
	l := s.seen[tp]
	if l == nil {
		l = &offsetLedger{}
		s.seen[tp] = l
	}
	return l
}

// acksWaiting notes, once per partition of a poll, when its
// acknowledgements began waiting for an answer.
func (c *consumerClient) acksWaiting(fs kgo.Fetches) {
	st := c.share
	now := time.Now()
	st.ackMu.Lock()
	defer st.ackMu.Unlock()
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		tp := topicPartition{p.Topic, p.Partition}
		if _, waiting := st.unanswered[tp]; !waiting && len(p.Records) > 0 {
			st.unanswered[tp] = now
		}
	})
}

// onAckResults counts the acknowledgements the broker refused, and times
// the answered ones.
func (c *consumerClient) onAckResults(_ *kgo.Client, rs kgo.ShareAckResults) {
	st := c.share
	now := time.Now()
	st.ackMu.Lock()
	defer st.ackMu.Unlock()
	for _, r := range rs {
		if r.Err != nil {
			c.ackErrs.Add(errorKind(r.Err))
		}
		tp := topicPartition{r.Topic, r.Partition}
		if since, ok := st.unanswered[tp]; ok {
			st.ackLat.Record(now.Sub(since).Microseconds())
			delete(st.unanswered, tp)
		}
	}
}
