package result

import (
	"fmt"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// mergeConsumers merges the consumers of one workload's slices: members
// of one group, each worker reading its share of the partitions.
func mergeConsumers(cs []*Consumer, workers []int, notes *inexact) (*Consumer, error) {
	out := &Consumer{}
	series := make([][]Interval, 0, len(cs))
	acts := make([]activity, 0, len(cs))
	placed := true
	reading := 0 // workers that read records
	var longestRead, longestRun, lagFrom int
	lagFrom = -1
	lagOthers := 0
	verified := 0 // share groups' workers that checked the topic
	for i, c := range cs {
		if c.DecodeError != "" && out.DecodeError == "" {
			out.DecodeError = fmt.Sprintf("worker %d: %s", workers[i], c.DecodeError)
		}
		if c.Share != nil && c.Share.Verification != nil {
			verified++
		}
		if err := out.Add(c); err != nil {
			return nil, fmt.Errorf("worker %d: %w", workers[i], err)
		}
		series = append(series, c.Intervals)
		if start, ok := workloadStart(c.Intervals); ok {
			acts = append(acts, activity{from: start, to: start.Add(seconds(c.DurationSeconds))})
		} else {
			placed = false
		}
		if c.Records > 0 {
			reading++
		}
		if c.ReadingSeconds > cs[longestRead].ReadingSeconds {
			longestRead = i
		}
		if c.DurationSeconds > cs[longestRun].DurationSeconds {
			longestRun = i
		}
		if len(c.Lag) > 0 {
			if lagFrom < 0 {
				lagFrom, out.Lag = i, c.Lag
			} else {
				lagOthers++
			}
		}
	}
	if verified > 1 {
		notes.add("consumer.share.verification: the first worker's check (each checks the whole topic); %d workers checked", verified)
	}
	if lagOthers > 0 {
		notes.add("consumer.lag: worker %d's samples (%d other workers sampled their own partitions): in a consumer group, the group's lag (worker %d's partitions at its read positions, the others' at the group's committed offsets, which trail the reads by up to auto.commit.interval.ms); with partitions assigned directly, worker %d's partitions only", workers[lagFrom], lagOthers, workers[lagFrom], workers[lagFrom])
	}
	var err error
	if out.Intervals, err = mergeSeriesOf(series); err != nil {
		return nil, fmt.Errorf("intervals: %w", err)
	}
	if len(cs) == 1 {
		c := cs[0]
		out.DurationSeconds, out.ReadingSeconds, out.RebalanceMs, out.FetchMs = c.DurationSeconds, c.ReadingSeconds, c.RebalanceMs, c.FetchMs
	} else {
		out.mergeTime(cs, acts, placed, workers[longestRun], notes)
		// The result keeps no first and last read times, so the union of
		// the workers' reading times is not known: the longest is its
		// least.
		out.ReadingSeconds = cs[longestRead].ReadingSeconds
		if reading > 1 {
			notes.add("consumer.reading_seconds, records_per_sec, mib_per_sec: over worker %d's reading time, the longest (the union of the workers' is not kept, and may be longer: the rates are then high)", workers[longestRead])
		}
		if out.Rebalances > 0 {
			notes.add("consumer.rebalances: the most any worker saw (each member sees the group's rebalances)")
		}
	}
	reads := seconds(out.ReadingSeconds)
	out.RecordsPerSec = measure.PerSecond(out.Records, reads)
	out.MiBPerSec = measure.PerSecond(out.Bytes, reads) / (1024 * 1024)
	out.LifetimeRecordsPerSec = measure.PerSecond(out.Records, seconds(out.DurationSeconds))
	return out, nil
}

// mergeTime sets the merged run time, rebalance and fetch times of
// several workers' consumers.
func (out *Consumer) mergeTime(cs []*Consumer, acts []activity, placed bool, longest int, notes *inexact) {
	if !placed {
		out.DurationSeconds = cs[longest].DurationSeconds
		for _, c := range cs {
			out.RebalanceMs = max(out.RebalanceMs, c.RebalanceMs)
		}
		out.FetchMs = cs[longest].FetchMs
		notes.add("consumer.duration_seconds, lifetime_records_per_sec, rebalance_ms, fetch_ms: the longest worker's (a slice without an interval series has no start on the clock)")
		return
	}
	start := acts[0].from
	var assigned time.Time // when the last worker's clients had their partitions
	for i, a := range acts {
		start = earliest(start, a.from)
		if t := a.from.Add(time.Duration(cs[i].RebalanceMs) * time.Millisecond); t.After(assigned) {
			assigned = t
		}
	}
	out.DurationSeconds = activeSeconds(acts)
	rebalance := assigned.Sub(start)
	out.RebalanceMs = rebalance.Milliseconds()
	out.FetchMs = (seconds(out.DurationSeconds) - rebalance).Milliseconds()
}

// Add adds o's deliveries to s's: counts add up, acknowledgement
// latencies merge exactly, members are listed after s's; the first
// verification is kept (each checks the whole topic).
func (s *Share) Add(o *Share) error {
	s.Deliveries += o.Deliveries
	s.Accepted += o.Accepted
	s.Released += o.Released
	s.Rejected += o.Rejected
	s.Renewed += o.Renewed
	s.Archived += o.Archived
	s.Redelivered += o.Redelivered
	s.LockTimeouts += o.LockTimeouts
	for i, n := range o.DeliveryCounts {
		if i == len(s.DeliveryCounts) {
			s.DeliveryCounts = append(s.DeliveryCounts, 0)
		}
		s.DeliveryCounts[i] += n
	}
	s.AckErrors = addCounts(s.AckErrors, o.AckErrors)
	switch {
	case o.AckLatency == nil:
	case s.AckLatency == nil:
		l := *o.AckLatency
		s.AckLatency = &l
	default:
		l, err := MergeLatencies([]*Latency{s.AckLatency, o.AckLatency})
		if err != nil {
			return fmt.Errorf("ack latency: %w", err)
		}
		s.AckLatency = l
	}
	s.PerMember = append(s.PerMember, o.PerMember...)
	if s.Verification == nil {
		s.Verification = o.Verification
	}
	return nil
}

// mergeCatchUps merges the catch-up of a late consume workload's
// workers (CatchUp.Add).
func mergeCatchUps(cs []*CatchUp, notes *inexact) *CatchUp {
	if len(cs) == 1 {
		return cs[0]
	}
	out := *cs[0]
	for _, c := range cs[1:] {
		out.Add(c)
	}
	notes.add("catch_up: records and last_records summed over the workers, each counted to its own catch-up; records_per_sec over the earliest drain_seconds; producer_avg_latency_ms the highest worker's")
	return &out
}
