package share

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
)

// shareGroup is a run's Membership: its clients are members of the share
// group consume.ConsumerSpec.Group, reading as Spec says.
type shareGroup struct {
	spec    consume.ConsumerSpec
	share   Spec
	settled settledSet // which records the members settled
	members []*shareMember
	reset   string  // the group's share.auto.offset.reset (shareReset)
	res     *Result // the members' counts summed (Collect)
}

// Collect implements Membership: the members' counts are summed as the
// run collects its result, as the consumers' are.
func (g *shareGroup) Collect() { g.res = g.result() }

// Member implements Membership.
func (g *shareGroup) Member(c *consume.Client) consume.Member {
	m := newShareMember(g, c)
	g.members = append(g.members, m)
	return m
}

// shareMember is one member of a share group and its counts (poll loop
// only, but for the acknowledgement times).
type shareMember struct {
	g    *shareGroup
	c    *consume.Client
	res  Result
	rng  *rand.Rand
	seen map[engine.TopicPartition]*offsetLedger // this member's ledger
	// settled caches the run's settled offsets per partition (settledBits).
	settled map[engine.TopicPartition]*offsetBits
	ackErrs measure.ErrorCounts
	conn    engine.ConnWatch // the last failed connection (a stall's why)

	// ackMu guards unanswered and ackLat: the poll loop notes when a
	// partition's acknowledgements began waiting, the ack callback
	// (another goroutine) records how long they waited.
	ackMu      sync.Mutex
	unanswered map[engine.TopicPartition]time.Time
	ackLat     *measure.Histogram
}

func newShareMember(g *shareGroup, c *consume.Client) *shareMember {
	seed := c.Seed()
	m := &shareMember{g: g, c: c, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		unanswered: map[engine.TopicPartition]time.Time{}, ackLat: measure.NewHistogram(), settled: map[engine.TopicPartition]*offsetBits{},
		res: Result{DeliveryCounts: make([]int64, maxDeliveryBucket+1), AckErrors: map[string]int64{}}}
	if g.share.Ledger {
		m.seen = map[engine.TopicPartition]*offsetLedger{}
	}
	return m
}

// Options implements Member: the share group, its topics, the
// acknowledgement callback and the connection watch.
func (m *shareMember) Options() []kgo.Opt {
	opts := []kgo.Opt{kgo.ShareGroup(m.g.spec.Group), kgo.ConsumeTopics(m.g.spec.Topics...),
		kgo.ShareAckCallback(m.onAckResults), kgo.WithHooks(&m.conn)}
	if n := m.g.spec.MaxPollRecords; n > 0 && n <= math.MaxInt32 {
		opts = append(opts, kgo.ShareMaxRecords(int32(n))) // as Java's max.poll.records
	}
	if m.g.share.RecordLimit {
		opts = append(opts, kgo.ShareMaxRecordsStrict()) // share.acquire.mode=record_limit
	}
	return opts
}

// Late implements Member: records polled after the run ended are
// released for others.
func (m *shareMember) Late(fs kgo.Fetches) {
	fs.EachRecord(func(r *kgo.Record) { r.Ack(kgo.AckRelease) })
}

// Done implements Member: it sends the member's last acknowledgements,
// within a bound (a broker gone would hold them: the records then return
// to the group when their locks run out).
func (m *shareMember) Done() {
	bound := engine.CloseBound
	if m.c.Interrupted() {
		bound = engine.InterruptCloseBound
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := m.c.Kgo().FlushAcks(ctx); err != nil {
		m.ackErrs.Add(engine.ErrorKind(err))
	}
}

// Handle implements Member: each record of the poll is processed,
// acknowledged as the spec decides, and counted once settled (accepted,
// rejected or archived). Records past the run's target, or polled after
// it ended, are released for others.
func (m *shareMember) Handle(fs kgo.Fetches, polled time.Time) error {
	sp := &m.g.share
	c := m.c
	var bytes, taken int64
	var lat measure.WindowStats
	var err error
	fs.EachError(func(topic string, partition int32, e error) {
		switch {
		case err != nil:
		case shareGroupsRefused(e):
			// franz-go retries a refused heartbeat for ever: the run
			// would wait for records that never come.
			err = errNoShareGroups(refusedShareGroups)
		default:
			err = c.FetchError(topic, partition, e)
		}
	})
	if err != nil {
		return err
	}
	now := polled
	defer m.acksWaiting(fs)
	fs.EachRecord(func(r *kgo.Record) {
		if c.Ended() {
			r.Ack(kgo.AckRelease) // past the run's end: another member's
			return
		}
		tp := engine.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		delivery := r.DeliveryCount()
		m.res.Deliveries++
		m.res.DeliveryCounts[min(int(delivery), maxDeliveryBucket)]++
		if delivery > 1 {
			m.res.Redelivered++
		}
		out := Accept
		if sp.Outcome != nil {
			out = sp.Outcome(m.rng, r.Offset, delivery)
		}
		if sp.Processing != nil {
			m.process(r, sp.Processing(m.rng), sp.RenewAfter, out == Renew)
			now = time.Now()
		}
		archived := out == Release && sp.DeliveryLimit > 0 && delivery >= sp.DeliveryLimit
		settled := out != Release || archived
		// first: no member settled this record before; a record settled
		// again (redelivered after an acknowledgement the broker never
		// took) is acknowledged as decided but counted once.
		first := settled && m.settledBits(tp).add(r.Offset)
		if first && c.Claim(1, now) == 0 {
			m.settledBits(tp).remove(r.Offset)
			r.Ack(kgo.AckRelease) // over the target
			return
		}
		switch {
		case first:
			m.res.Settled++
		case settled:
			m.res.Resettled++
		}
		switch out {
		case Accept, Renew:
			r.Ack(kgo.AckAccept)
			m.res.Accepted++
			if !first {
				break // counted when first settled
			}
			taken++
			bytes += int64(len(r.Key) + len(r.Value))
			if c.LatencyOn() {
				if us, ok := c.Latency(r, polled); ok {
					lat.LatSumUs += us
					lat.LatMaxUs = max(lat.LatMaxUs, us)
					lat.LatCount++
				}
			}
		case Release:
			r.Ack(kgo.AckRelease)
			m.res.Released++
			if archived {
				m.res.Archived++
			}
		case Reject:
			r.Ack(kgo.AckReject)
			m.res.Rejected++
		}
		if m.seen != nil {
			m.ledger(tp).note(r.Offset, out, archived, delivery)
		}
		if first {
			c.Received(now)
		}
	})
	c.Took(now, taken, bytes, lat)
	if taken > 0 && sp.OnPoll != nil {
		records, bytes := c.Totals()
		sp.OnPoll(c.ID(), records, bytes, now)
	}
	return nil
}

// process holds the record for d, the time its processing takes,
// renewing its lock every renewAfter (or once, for a Renew outcome) so
// that it is not redelivered meanwhile.
func (m *shareMember) process(r *kgo.Record, d, renewAfter time.Duration, renew bool) {
	if renew {
		r.Ack(kgo.AckRenew)
		m.res.Renewed++
	}
	for renewAfter > 0 && d > renewAfter {
		m.c.Spend(renewAfter)
		d -= renewAfter
		r.Ack(kgo.AckRenew)
		m.res.Renewed++
	}
	m.c.Spend(d)
}

// settledBits is the run's settled offsets of a partition, kept per
// member so that the run's map is asked once per partition.
func (m *shareMember) settledBits(tp engine.TopicPartition) *offsetBits {
	b := m.settled[tp]
	if b == nil {
		b = m.g.settled.part(tp)
		m.settled[tp] = b
	}
	return b
}

func (m *shareMember) ledger(tp engine.TopicPartition) *offsetLedger {
	l := m.seen[tp]
	if l == nil {
		l = &offsetLedger{}
		m.seen[tp] = l
	}
	return l
}

// acksWaiting notes, once per partition of a poll, when its
// acknowledgements began waiting for an answer.
func (m *shareMember) acksWaiting(fs kgo.Fetches) {
	now := time.Now()
	m.ackMu.Lock()
	defer m.ackMu.Unlock()
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		tp := engine.TopicPartition{Topic: p.Topic, Partition: p.Partition}
		if _, waiting := m.unanswered[tp]; !waiting && len(p.Records) > 0 {
			m.unanswered[tp] = now
		}
	})
}

// onAckResults counts the acknowledgements the broker refused, and times
// the answered ones.
func (m *shareMember) onAckResults(_ *kgo.Client, rs kgo.ShareAckResults) {
	now := time.Now()
	m.ackMu.Lock()
	defer m.ackMu.Unlock()
	for _, r := range rs {
		if r.Err != nil {
			m.ackErrs.Add(engine.ErrorKind(r.Err))
		}
		tp := engine.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if since, ok := m.unanswered[tp]; ok {
			m.ackLat.Record(now.Sub(since).Microseconds())
			delete(m.unanswered, tp)
		}
	}
}

// result sums the members' counts, once the run has ended.
func (g *shareGroup) result() *Result {
	out := &Result{DeliveryCounts: make([]int64, maxDeliveryBucket+1), AckErrors: map[string]int64{},
		AckLatency: measure.NewHistogram()}
	for _, m := range g.members {
		s := m.res
		out.Deliveries += s.Deliveries
		out.Accepted += s.Accepted
		out.Released += s.Released
		out.Rejected += s.Rejected
		out.Renewed += s.Renewed
		out.Archived += s.Archived
		out.Settled += s.Settled
		out.Resettled += s.Resettled
		out.PerMember = append(out.PerMember, s.Settled)
		out.Redelivered += s.Redelivered
		for i, n := range s.DeliveryCounts {
			out.DeliveryCounts[i] += n
		}
		for k, v := range m.ackErrs.Snapshot() {
			out.AckErrors[k] += v
		}
		m.ackMu.Lock()
		out.AckLatency.Merge(m.ackLat)
		m.ackMu.Unlock()
	}
	if g.share.Ledger {
		out.Ledger = mergeLedgers(g.members)
		out.LockTimeouts = out.Ledger.lockTimeouts()
	} else {
		out.LockTimeouts = max(out.Redelivered-(out.Released-out.Archived), 0)
	}
	return out
}
