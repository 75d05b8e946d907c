package workload

import (
	"context"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// consumerReporter takes every client's window once per interval and hands
// the combined stats to ConsumerSpec.OnInterval. An interval in which
// nothing arrived is carried into the next, as the Apache tool prints a
// progress line only when a record arrives after the interval elapsed.
type consumerReporter struct {
	cr        *ConsumerRun
	start     time.Time // of the interval being accumulated
	acc       ConsumerInterval
	total     measure.WindowStats // records and bytes so far
	intervals []ConsumerInterval
}

func newConsumerReporter(r *ConsumerRun) *consumerReporter {
	return &consumerReporter{cr: r, start: r.start}
}

func (p *consumerReporter) run(ctx context.Context) {
	t := time.NewTicker(p.cr.spec.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return // final, called by Wait once the poll loops are done, takes the rest
		case now := <-t.C:
			p.tick(now, false)
		}
	}
}

// final reports the last, partial interval up to the end of the run.
func (p *consumerReporter) final(end time.Time) { p.tick(end, true) }

func (p *consumerReporter) tick(now time.Time, final bool) {
	var rebalance time.Duration
	for _, c := range p.cr.clients {
		w := c.window.Take()
		p.acc.Records += w.Count
		p.acc.Bytes += w.Bytes
		p.acc.LatSumUs += w.LatSumUs
		p.acc.LatencyCount += w.LatCount
		p.acc.LatMaxUs = max(p.acc.LatMaxUs, w.LatMaxUs)
		if c.group != nil {
			// Clients rebalance together: the interval lost the longest wait.
			rebalance = max(rebalance, c.group.takeJoined())
		}
	}
	p.acc.Rebalance += rebalance
	if p.acc.Records == 0 && !final {
		return
	}
	if p.acc.Records == 0 && now.Sub(p.start) < p.cr.spec.Interval/10 {
		return // a final sliver with nothing in it is noise
	}
	p.total.Count += p.acc.Records
	p.total.Bytes += p.acc.Bytes
	iv := p.acc
	iv.Start, iv.End = p.start, now
	iv.TotalRecords, iv.TotalBytes = p.total.Count, p.total.Bytes
	iv.Final = final
	p.intervals = append(p.intervals, iv)
	p.start, p.acc = now, ConsumerInterval{}
	if p.cr.spec.OnInterval != nil {
		p.cr.spec.OnInterval(iv)
	}
}
