package consume

import (
	"context"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// consumerReporter takes every client's window once per interval. The
// series (the result's) keeps every interval, empty ones included, so an
// outage shows as zeros; OnInterval gets the Apache tool's view: an
// interval in which nothing arrived is carried into the next, as the tool
// prints a progress line only when a record arrives after the interval
// elapsed.
type consumerReporter struct {
	cr        *ConsumerRun
	last      time.Time // end of the last interval of the series
	start     time.Time // of the interval being accumulated for OnInterval
	acc       measure.ConsumerInterval
	first     bool                       // no interval given to OnInterval yet
	total     measure.WindowStats        // records and bytes so far
	intervals []measure.ConsumerInterval // the series so far: series.items
	series    engine.Series[measure.ConsumerInterval]
}

func newConsumerReporter(r *ConsumerRun) *consumerReporter {
	return &consumerReporter{cr: r, start: r.start, last: r.start, first: true, series: engine.Series[measure.ConsumerInterval]{Merge: engine.MergeConsumerIntervals}}
}

func (p *consumerReporter) run(ctx context.Context) {
	// Aligned on the epoch when there is one, as the producer's.
	tk := measure.NewTicker(p.cr.spec.Epoch, p.cr.start, p.cr.spec.Interval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return // final, called by Wait once the poll loops are done, takes the rest
		case now := <-tk.C():
			p.tick(now, false)
			tk.Next(now)
		}
	}
}

// final reports the last, partial interval up to the end of the run.
func (p *consumerReporter) final(end time.Time) { p.tick(end, true) }

func (p *consumerReporter) tick(now time.Time, final bool) {
	var rebalance time.Duration
	var iv measure.ConsumerInterval
	for _, c := range p.cr.clients {
		w := c.window.Take()
		iv.Records += w.Count
		iv.Bytes += w.Bytes
		iv.LatSumUs += w.LatSumUs
		iv.LatencyCount += w.LatCount
		iv.LatMaxUs = max(iv.LatMaxUs, w.LatMaxUs)
		if c.group != nil {
			// Clients rebalance together: the interval lost the longest wait.
			rebalance = max(rebalance, c.group.takeJoined())
		}
	}
	iv.Rebalance = rebalance
	iv.Series, iv.Histogram = p.cr.ivHist.Take()
	if final && iv.Records == 0 && now.Sub(p.last) < p.cr.spec.Interval/10 {
		return // a final sliver with nothing in it is noise
	}
	p.total.Count += iv.Records
	p.total.Bytes += iv.Bytes
	iv.Start, iv.End = p.last, now
	iv.TotalRecords, iv.TotalBytes = p.total.Count, p.total.Bytes
	iv.Final = final
	p.series.Add(iv, now.Sub(p.last), p.cr.spec.Interval, final)
	p.intervals = p.series.Items
	p.last = now

	p.acc.Records += iv.Records
	p.acc.Bytes += iv.Bytes
	p.acc.LatSumUs += iv.LatSumUs
	p.acc.LatencyCount += iv.LatencyCount
	p.acc.LatMaxUs = max(p.acc.LatMaxUs, iv.LatMaxUs)
	p.acc.Rebalance += iv.Rebalance
	if p.acc.Records == 0 && !final {
		return
	}
	printed := p.acc
	printed.Start, printed.End = p.start, now
	printed.TotalRecords, printed.TotalBytes = p.total.Count, p.total.Bytes
	printed.Final = final
	// What OnInterval gets spans the intervals since the last one it got:
	// whether it is too short for a rate is decided on that span.
	printed.Folded = (final || p.first) && measure.Folds(now.Sub(p.start), p.cr.spec.Interval)
	p.first = false
	p.start, p.acc = now, measure.ConsumerInterval{}
	if p.cr.spec.OnInterval != nil {
		p.cr.spec.OnInterval(printed)
	}
}
