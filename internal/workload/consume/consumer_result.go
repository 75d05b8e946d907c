package consume

import (
	"context"
	"slices"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// ConsumerResult is what a consumer workload measured.
type ConsumerResult struct {
	Start, End time.Time // End is when the stop condition was met
	// FirstRecord and LastRecord are when the first and the last poll that
	// returned records came back (zero when none did): the consumer read
	// between them, and waited for records before and after.
	FirstRecord, LastRecord time.Time
	Reason                  StopReason
	Records                 int64
	Bytes                   int64 // keys and values, as the Apache tool counts
	// Rebalance is the time spent joining the group and waiting for an
	// assignment, by the Apache tool's rule, for the client that waited
	// longest.
	Rebalance time.Duration
	// Rebalances counts the group generations after every client had its
	// first assignment: each is one rebalance during the run (a
	// cooperative rebalance that moves partitions takes two).
	Rebalances int
	// GroupChanges are the members' joins, assignments, revocations and
	// leaves, in time order (clients of a group only): with another
	// workload's in the same group, how long the group took to settle
	// after a member joined or left.
	GroupChanges []GroupChange
	// Latency is the end-to-end latency in microseconds, nil unless
	// ConsumerSpec.Latency.
	Latency *measure.Histogram
	// FromHeader and FromTimestamp count the records whose send time came
	// from kbench's header (µs) and from their timestamp (ms); Backlog
	// those sent before the run, left out of Latency: their latency would
	// be their age.
	FromHeader, FromTimestamp, Backlog int64
	// Decoded and DecodeFailures count the records whose values decoded
	// and did not (ConsumerSpec.Decode); DecodeError is the first failure.
	Decoded, DecodeFailures int64
	DecodeError             error
	// CaughtUp is when, after the start, the first record sent after the
	// start was read (with Latency): the time to drain the backlog. Zero
	// when it never was.
	CaughtUp time.Duration
	// CaughtUpRecords is how many records had been read when it caught up.
	CaughtUpRecords int64
	// Drain is the catch-up partition by partition: CaughtUp is the first
	// partition's, Drain.Last the last one's (with Latency).
	Drain     Drain
	Errors    map[string]int64
	Intervals []measure.ConsumerInterval
	Lag       []measure.LagSample
	Clients   int
	// PerClient and PerClientBytes are each client's records and bytes.
	PerClient, PerClientBytes []int64
	// Topics are the topics consumed and their partition counts, as at
	// the start.
	Topics map[string]int
	// Sections are what the readers measured in sections of their own
	// (ConsumerSpec.Visible: the commit-to-visible delays).
	Sections map[string]measure.Section
}

// collect gathers the clients' counts once their loops have ended.
func (r *ConsumerRun) collect() *ConsumerResult {
	end := time.Unix(0, r.endNanos.Load())
	reason, _ := r.reason.Load().(StopReason)
	r.rep.final(end)
	if r.lag != nil && reason != StopCanceled && !r.interrupted() {
		// One last sample shows what a run that ended early left behind.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r.lag.sample(ctx)
		cancel()
	}
	res := &ConsumerResult{
		Start: r.start, End: end, Reason: reason,
		Errors:    map[string]int64{},
		Intervals: r.rep.intervals,
		Clients:   len(r.clients),
		Topics:    r.topics,
	}
	if ns := r.firstTaken.Load(); ns != 0 {
		res.FirstRecord, res.LastRecord = time.Unix(0, ns), time.Unix(0, r.lastTaken.Load())
	}
	if r.lag != nil {
		res.Lag = r.lag.samples
	}
	if r.spec.Latency {
		res.Latency = measure.NewHistogram()
	}
	stableGen, maxGen := int32(-1), int32(-1)
	leaving := time.Now() // the clients close right after collect
	for _, c := range r.clients {
		res.Records += c.records
		res.Bytes += c.bytes
		res.PerClient = append(res.PerClient, c.records)
		res.PerClientBytes = append(res.PerClientBytes, c.bytes)
		if res.Latency != nil {
			res.Latency.Merge(c.hist)
		}
		res.FromHeader += c.fromHeader
		res.FromTimestamp += c.fromTimestamp
		res.Backlog += c.backlog
		res.Decoded += c.decoded
		res.DecodeFailures += c.undecodable
		if res.DecodeError == nil {
			res.DecodeError = c.firstDecodeErr
		}
		res.CaughtUp = time.Duration(r.caughtUp.Load())
		res.CaughtUpRecords = r.caughtUpRecords.Load()
		for k, v := range c.errs.Snapshot() {
			res.Errors[k] += v
		}
		if c.group != nil {
			res.GroupChanges = append(res.GroupChanges, c.group.left(leaving)...)
			joined, first, last := c.group.state(c.cl)
			res.Rebalance = max(res.Rebalance, joined)
			stableGen, maxGen = max(stableGen, first), max(maxGen, last)
		}
	}
	if r.members != nil {
		r.members.Collect()
	}
	if r.spec.Latency && r.members == nil {
		// Another kind of group's members track no catch-up.
		res.Drain = drainOf(r.clients, r.topics)
	}
	slices.SortStableFunc(res.GroupChanges, func(a, b GroupChange) int { return a.At.Compare(b.At) })
	if stableGen >= 0 {
		res.Rebalances = int(max(maxGen-stableGen, 0))
	}
	if r.spec.Visible != nil {
		vis := &engine.VisibleDelay{}
		for _, c := range r.clients {
			if c.visible != nil {
				_ = vis.Add(c.visible.Finish()) // one type: cannot fail
			}
		}
		res.Sections = map[string]measure.Section{engine.VisibleSectionName: vis}
	}
	return res
}

// Reading is the time the consumers read: from the first poll that
// returned records to the last, as the Apache tool's fetch.nMsg.sec leaves
// out the time spent joining the group; a consumer that keeps pace with a
// producer also waits for records before the first and after the last,
// which is no reading. When that span is under measure.MinRateSpan (every
// record came in one or two polls) it is the whole run, start to end.
func (r *ConsumerResult) Reading() time.Duration {
	if d := r.LastRecord.Sub(r.FirstRecord); !r.FirstRecord.IsZero() && d >= measure.MinRateSpan {
		return d
	}
	return r.End.Sub(r.Start)
}
