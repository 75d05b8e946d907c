package result

import (
	"fmt"
	"slices"
)

// The sections of a result add themselves: the counts and latencies of
// another client's, worker's or repeat's section of the same workload.
// What cannot be added (the time it ran, its rates, series on a clock)
// is placed by the merge that calls Add (merge_*.go), from every part at
// once.

// Add adds o's counts and latencies to p's: clients, records, failures,
// errors, CPU, the publish, delay and send latencies (exactly, from their
// histograms), transactions and a balanced search's steps. Both must
// measure latency from the same point.
func (p *Producer) Add(o *Producer) error {
	if o.LatencyFrom != p.LatencyFrom {
		return fmt.Errorf("latency from %q, not %q", o.LatencyFrom, p.LatencyFrom)
	}
	if o.Format != p.Format {
		p.Format = "mixed"
	}
	p.Clients += o.Clients
	p.VUs += o.VUs // workers split fixed users, as clients (a ramp is not split)
	p.Records += o.Records
	p.Bytes += o.Bytes
	p.Failed += o.Failed
	p.Unresolved += o.Unresolved
	p.UnresolvedMaxWaitMs = max(p.UnresolvedMaxWaitMs, o.UnresolvedMaxWaitMs)
	p.NotSent += o.NotSent
	p.TargetRate += o.TargetRate
	p.Errors = addCounts(p.Errors, o.Errors)
	p.CPUSeconds += o.CPUSeconds
	p.FirstSendAt = earliestPtr(p.FirstSendAt, o.FirstSendAt)
	p.FirstAckAt = earliestPtr(p.FirstAckAt, o.FirstAckAt)
	if err := p.addLatencies(o); err != nil {
		return err
	}
	if o.Transactions != nil {
		if p.Transactions == nil {
			p.Transactions = &Transactions{}
		}
		if err := p.Transactions.Add(o.Transactions); err != nil {
			return fmt.Errorf("transactions: %w", err)
		}
	}
	p.BalancedRates = addRates(p.BalancedRates, o.BalancedRates)
	return nil
}

// addSteady adds o's steady-state counts and latencies to p's (a steady
// state's own producer: no failures, transactions or searches of its own).
func (p *Producer) addSteady(o *Producer) error {
	p.Clients += o.Clients
	p.VUs += o.VUs
	p.Records += o.Records
	p.Bytes += o.Bytes
	p.StartedAt = earliestPtr(p.StartedAt, o.StartedAt)
	return p.addLatencies(o)
}

// addLatencies adds o's publish latency, publish delay and send latency.
func (p *Producer) addLatencies(o *Producer) error {
	if err := p.Latency.Add(&o.Latency); err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	var err error
	if p.PublishDelay, err = addLatency(p.PublishDelay, o.PublishDelay); err != nil {
		return fmt.Errorf("publish delay: %w", err)
	}
	if p.SendLatency, err = addLatency(p.SendLatency, o.SendLatency); err != nil {
		return fmt.Errorf("send latency: %w", err)
	}
	return nil
}

// addLatency adds o to l, either of which may be absent.
func addLatency(l, o *Latency) (*Latency, error) {
	switch {
	case o == nil:
		return l, nil
	case l == nil:
		l = &Latency{}
	}
	return l, l.Add(o)
}

// Add adds o's counts to c's: clients, records, bytes, errors, CPU,
// decoding, and a share group's deliveries; the rebalances are the most
// either saw (each member sees the group's).
func (c *Consumer) Add(o *Consumer) error {
	c.Clients += o.Clients
	c.Records += o.Records
	c.Bytes += o.Bytes
	c.Errors = addCounts(c.Errors, o.Errors)
	c.CPUSeconds += o.CPUSeconds
	c.Decoded += o.Decoded
	c.DecodeFailures += o.DecodeFailures
	if c.DecodeError == "" {
		c.DecodeError = o.DecodeError
	}
	c.Rebalances = max(c.Rebalances, o.Rebalances)
	if len(o.GroupChanges) > 0 {
		c.GroupChanges = append(append([]GroupChange(nil), c.GroupChanges...), o.GroupChanges...)
		slices.SortStableFunc(c.GroupChanges, func(a, b GroupChange) int { return a.At.Compare(b.At) })
	}
	if o.Share != nil {
		if c.Share == nil {
			c.Share = &Share{}
		}
		if err := c.Share.Add(o.Share); err != nil {
			return fmt.Errorf("share: %w", err)
		}
	}
	return nil
}

// Add adds a late consume workload's catch-up from another worker:
// partitions and records add up; the first partition caught up is the
// earliest worker's, the last the latest's (and none when one's never
// did: LastDrainSeconds 0).
func (c *CatchUp) Add(o *CatchUp) {
	c.StartedAfterSeconds = min(c.StartedAfterSeconds, o.StartedAfterSeconds)
	c.Partitions += o.Partitions
	c.PartitionsCaughtUp += o.PartitionsCaughtUp
	c.Records += o.Records
	c.LastRecords += o.LastRecords
	if o.DrainSeconds > 0 && (c.DrainSeconds == 0 || o.DrainSeconds < c.DrainSeconds) {
		c.DrainSeconds = o.DrainSeconds
	}
	if c.LastDrainSeconds == 0 || o.LastDrainSeconds == 0 {
		c.LastDrainSeconds = 0
	} else {
		c.LastDrainSeconds = max(c.LastDrainSeconds, o.LastDrainSeconds)
	}
	c.ProducerAvgLatencyMs = max(c.ProducerAvgLatencyMs, o.ProducerAvgLatencyMs)
	c.ProducerMaxLatencyMs = max(c.ProducerMaxLatencyMs, o.ProducerMaxLatencyMs)
	if c.DrainSeconds > 0 {
		c.RecordsPerSec = float64(c.Records) / c.DrainSeconds
	}
}

// Add adds another process's CPU and goroutines (each at its own peak:
// an upper bound of the sum at any moment) and keeps the larger resident
// memory (each process is its own machine's or container's).
func (p *Process) Add(o *Process) {
	p.CPUSeconds += o.CPUSeconds
	p.PeakGoroutines += o.PeakGoroutines
	p.PeakRSSBytes = max(p.PeakRSSBytes, o.PeakRSSBytes)
}
