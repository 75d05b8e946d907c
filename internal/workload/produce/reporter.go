package produce

import (
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// reporter takes every client's window once per interval and hands the
// combined stats to ProducerSpec.OnInterval.
type reporter struct {
	spec      ProducerSpec
	clients   []*producerClient
	start     time.Time
	last      time.Time
	done      chan struct{}
	intervals []measure.Interval // the series so far: ser.items
	ser       engine.Series[measure.Interval]
	steady    bool
	lastAck   time.Time // when an interval last saw a record complete
	failed    int64     // the clients' failures counted in intervals so far
	ivHist    *measure.IntervalHistogram
	delayHist *engine.IntervalHist // send delays, of clients on a schedule
	pubHist   *engine.IntervalHist // latencies, for Interval.LatencyHistogram
}

func newReporter(spec ProducerSpec, clients []*producerClient, start time.Time) *reporter {
	return &reporter{spec: spec, clients: clients, start: start, last: start, lastAck: start, done: make(chan struct{}),
		ser: engine.Series[measure.Interval]{Merge: engine.MergeIntervals}}
}

func (r *reporter) run() {
	// Intervals are aligned on the epoch (the scenario's clock) when there
	// is one.
	tk := measure.NewTicker(r.spec.Epoch, r.start, r.spec.Interval)
	defer tk.Stop()
	for {
		select {
		case now := <-tk.C():
			r.tick(now, false)
			tk.Next(now)
		case <-r.done:
			r.tick(time.Now(), true)
			return
		}
	}
}

// stop ends the reporter after one last, partial interval.
func (r *reporter) stop() { close(r.done) }

// tick closes an interval. The series (the result's) counts every record
// that completed in it; what OnInterval prints follows the Apache tool:
// once steady state begins, only steady records, and the warm-up records
// completing in the interval where it begins belong to neither.
func (r *reporter) tick(now time.Time, final bool) {
	iv := measure.Interval{Elapsed: now.Sub(r.start), Length: now.Sub(r.last), Final: final}
	r.last = now
	if !r.steady {
		// Marked from the interval in which steady state began.
		_, r.steady = r.clients[0].warm.at(iv.Elapsed)
	}
	iv.Steady = r.steady
	var all, steady, sent, steadySent measure.WindowStats
	for _, c := range r.clients {
		all.Merge(c.window.Take())
		steady.Merge(c.steadyWindow.Take())
		if c.delays != nil {
			sent.Merge(c.delays.sentWindow.Take())
			steadySent.Merge(c.delays.steadySentWindow.Take())
		}
	}
	if all.Count > 0 {
		r.lastAck = now
	} else if !final {
		r.stalled(now)
	}
	var failed int64
	for _, c := range r.clients {
		failed += c.errs.Total()
	}
	if all.Count == 0 && failed == r.failed && iv.Length < r.spec.Interval/10 {
		return // a final sliver with nothing in it is noise, not a stall
	}
	series := iv
	series.WindowStats = all
	series.FailedIn, r.failed = failed-r.failed, failed
	r.takeDelays(&series)
	if r.ivHist != nil {
		var bounds []int64
		if r.spec.OnSeries != nil {
			bounds = measure.LatencyBucketsUs()
		}
		q, counts := r.ivHist.TakeBuckets(bounds, 50, 99, 99.9)
		series.P50Us, series.P99Us, series.P999Us = q[0], q[1], q[2]
		series.Buckets = counts
	}
	kept := series
	kept.Buckets = nil // for OnSeries only: not kept per interval
	series.Folded = r.ser.Add(kept, iv.Length, r.spec.Interval, final)
	r.intervals = r.ser.Items
	if r.spec.OnSeries != nil {
		series.Errors = map[string]int64{}
		for _, c := range r.clients {
			for k, n := range c.errs.Snapshot() {
				series.Errors[k] += n
				series.Failed += n
			}
		}
		r.spec.OnSeries(series)
	}
	if r.spec.OnInterval != nil {
		printed := iv
		printed.Folded = series.Folded
		printed.WindowStats, printed.Sent = all, sent
		if r.steady {
			printed.WindowStats, printed.Sent = steady, steadySent
		}
		r.spec.OnInterval(printed)
	}
}

// stalled tells OnStall that nothing completed in the interval although
// records wait in the clients' buffers, or for their transaction's commit
// (regression: a broker paused while a commit waited went unreported
// until the commit's bound ended the run), with the last connection
// error.
// With nothing waiting (no user active in a ramp from 0, a slow rate
// between records) there is no stall, and its clock starts again: a ramp
// from `vus: 0` whose first record went out just before an interval ended
// was said to have waited since the start.
func (r *reporter) stalled(now time.Time) {
	if r.spec.OnStall == nil {
		return
	}
	var outstanding int64
	reason := ""
	for _, c := range r.clients {
		if b := c.cl.BufferedProduceRecords(); b > 0 {
			outstanding += b
		} else {
			outstanding += c.committing.Load()
		}
		if e := c.conn.Last(); e != "" {
			reason = e
		}
	}
	if outstanding == 0 {
		r.lastAck = now
		return
	}
	r.spec.OnStall(measure.Stall{For: now.Sub(r.lastAck), Outstanding: outstanding, LastError: reason})
}

// takeDelays adds the interval's send delays (producer_delay.go) to iv,
// and its latencies' histogram.
func (r *reporter) takeDelays(iv *measure.Interval) {
	for _, c := range r.clients {
		if c.delays != nil {
			iv.Delay.Merge(c.delays.window.Take())
		}
	}
	_, iv.DelayHistogram = r.delayHist.Take()
	iv.Series, iv.LatencyHistogram = r.pubHist.Take()
}
