package ombresult

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// Build makes OMB's result of one repeat of the run. Periods are 10 s from
// the end of the warm-up (where OMB's test begins) on the scenario's clock;
// each interval of the workloads' series counts in the period its middle
// falls in, and what comes after the last whole period, until the
// producers' end, makes one more period, or joins the last one when under
// 5 s, as kbench folds short intervals; the consumers' reads after the
// producers ended count in the last period. So every record is in exactly
// one period or in the warm-up: the periods' counts add up to
// result.json's.
func Build(rep result.Repeat, run Run) (*TestResult, error) {
	if err := run.check(); err != nil {
		return nil, err
	}
	prods, cons, err := pick(rep, run)
	if err != nil {
		return nil, err
	}
	start, ok := firstStart(prods)
	if !ok {
		return nil, fmt.Errorf("no producer measured anything: OMB's result has no period")
	}
	testStart := start.Add(run.Warmup)
	end := lastEnd(prods)
	n := periods(end.Sub(testStart))
	if n == 0 {
		return nil, fmt.Errorf("the run ended %.1f s into its %s warm-up: OMB's result has no period after it", end.Sub(start).Seconds(), run.Warmup)
	}
	ps := make([]period, n)
	for k := range ps {
		ps[k].start = testStart.Add(time.Duration(k) * Period)
		ps[k].end = ps[k].start.Add(Period)
	}
	ps[n-1].end = end
	place := func(iv result.Interval, add func(p *period)) {
		mid := middle(iv)
		k := int(math.Floor(float64(mid.Sub(testStart)) / float64(Period)))
		if k >= 0 {
			add(&ps[min(k, n-1)])
		}
	}
	for _, p := range prods {
		for _, iv := range p.Intervals {
			place(iv, func(p *period) {
				p.sent, p.failed = p.sent+iv.Records, p.failed+iv.Failed
				p.pub.add(histogramCount(iv.PublishHistogram), iv.AvgLatencyMs*1000, iv.MaxLatencyMs*1000, iv.PublishHistogram)
				p.delay.add(histogramCount(iv.PublishDelayHistogram), iv.PublishDelayAvgUs, float64(iv.PublishDelayMaxUs), iv.PublishDelayHistogram)
			})
		}
	}
	for _, c := range cons {
		for _, iv := range c.Consumer.Intervals {
			place(iv, func(p *period) {
				p.received += iv.Records
				p.e2e.add(histogramCount(iv.EndToEndHistogram), iv.AvgLatencyMs*1000, iv.MaxLatencyMs*1000, iv.EndToEndHistogram)
			})
		}
	}
	r := &TestResult{
		Workload: run.Workload, Driver: run.Driver, MessageSize: run.MessageSize,
		Topics: run.Topics, Partitions: run.Partitions,
		ProducersPerTopic: run.ProducersPerTopic, ConsumersPerTopic: run.ConsumersPerTopic,
	}
	subs := int64(max(run.SubscriptionsPerTopic, 0))
	var e2e periodLatency // the test's, after the warm-up
	for _, p := range ps {
		e2e.join(p.e2e)
		secs := p.end.Sub(p.start).Seconds()
		r.PeriodSeconds = append(r.PeriodSeconds, secs)
		r.PublishRate = append(r.PublishRate, float64(p.sent)/secs)
		r.PublishErrorRate = append(r.PublishErrorRate, float64(p.failed)/secs)
		r.ConsumeRate = append(r.ConsumeRate, float64(p.received)/secs)
		sent, received := upTo(prods, cons, p.end)
		r.Backlog = append(r.Backlog, max(0, subs*sent-received))
		if err := r.addLatencies(&p); err != nil {
			return nil, err
		}
	}
	if err := r.aggregate(prods, cons, e2e); err != nil {
		return nil, err
	}
	return r, nil
}

// period is one of OMB's periods: what completed in it.
type period struct {
	start, end             time.Time
	sent, failed, received int64
	pub, delay, e2e        periodLatency
}

// addLatencies appends a period's latency figures: publish latency and
// end-to-end in ms, the publish delay in µs.
func (r *TestResult) addLatencies(p *period) error {
	for _, l := range []struct {
		from *periodLatency
		to   *Series
		unit float64
		what string
	}{{&p.pub, &r.Publish, inMs, "publish latency"}, {&p.delay, &r.PublishDelay, inUs, "publish delay"}, {&p.e2e, &r.EndToEnd, inMs, "end-to-end latency"}} {
		f, err := l.from.figures(l.unit)
		if err != nil {
			return fmt.Errorf("%s from %s: %w", l.what, p.start.Format(time.RFC3339), err)
		}
		l.to.add(f)
	}
	return nil
}

// periods is how many periods a test of length d makes: whole ones, and
// a last partial one of at least half a period (a shorter rest joins the
// last whole one).
func periods(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	n := int(d / Period)
	if rest := d - time.Duration(n)*Period; rest >= Period/2 || n == 0 {
		n++
	}
	return n
}

// pick finds the run's producing and consuming workloads in the repeat.
func pick(rep result.Repeat, run Run) (prods []*result.Producer, cons []*result.Workload, err error) {
	for _, name := range run.Producers {
		w := find(rep, name)
		if w == nil || w.Producer == nil {
			return nil, nil, fmt.Errorf("repeat %d has no produce workload %q", rep.Index, name)
		}
		prods = append(prods, w.Producer)
	}
	for _, name := range run.Consumers {
		w := find(rep, name)
		if w == nil || w.Consumer == nil {
			return nil, nil, fmt.Errorf("repeat %d has no consume workload %q", rep.Index, name)
		}
		cons = append(cons, w)
	}
	return prods, cons, nil
}

func find(rep result.Repeat, name string) *result.Workload {
	i := slices.IndexFunc(rep.Workloads, func(w result.Workload) bool { return w.Name == name })
	if i < 0 {
		return nil
	}
	return &rep.Workloads[i]
}

// firstStart is when the first producer started: the scenario's clock,
// from which the warm-up runs.
func firstStart(prods []*result.Producer) (time.Time, bool) {
	var t time.Time
	for _, p := range prods {
		if len(p.Intervals) > 0 && (t.IsZero() || p.Intervals[0].Start.Before(t)) {
			t = p.Intervals[0].Start.Round(0)
		}
	}
	return t, !t.IsZero()
}

// lastEnd is when the last producer's last interval ended: OMB's test
// ends with its producers. What the consumers read after it (the rest of
// what was sent, then an idle wait) counts in the last period.
func lastEnd(prods []*result.Producer) time.Time {
	var t time.Time
	for _, p := range prods {
		if n := len(p.Intervals); n > 0 {
			if e := intervalEnd(p.Intervals[n-1]); e.After(t) {
				t = e
			}
		}
	}
	return t
}

// intervalEnd and middle are on the wall clock alone (Round(0) drops the
// monotonic reading a document fresh from a run still has): OMB's result
// of a result.json read back is the same as of the run's own.
func intervalEnd(iv result.Interval) time.Time {
	return iv.Start.Round(0).Add(time.Duration(iv.Seconds * float64(time.Second)))
}

func middle(iv result.Interval) time.Time {
	return iv.Start.Round(0).Add(time.Duration(iv.Seconds * float64(time.Second) / 2))
}

// upTo counts the records acknowledged and read in intervals whose middle
// is before t: OMB's totals when it closes the period ending at t.
func upTo(prods []*result.Producer, cons []*result.Workload, t time.Time) (sent, received int64) {
	before := func(iv result.Interval) bool { return middle(iv).Before(t) }
	for _, p := range prods {
		for _, iv := range p.Intervals {
			if before(iv) {
				sent += iv.Records
			}
		}
	}
	for _, c := range cons {
		for _, iv := range c.Consumer.Intervals {
			if before(iv) {
				received += iv.Records
			}
		}
	}
	return sent, received
}

// aggregate fills the aggregated figures and quantile maps from the
// workloads' histograms: the producers' publish latency and publish delay
// after their warm-up (steady state); the consumers' end-to-end latency
// after the warm-up from their intervals' histograms (test, the periods'
// together), as OMB resets its histograms after the warm-up, or over the
// whole run when the intervals kept none.
func (r *TestResult) aggregate(prods []*result.Producer, cons []*result.Workload, test periodLatency) error {
	pub, delay := measure.NewHistogram(), measure.NewHistogram()
	for _, p := range prods {
		steady := p
		if p.SteadyState != nil {
			steady = p.SteadyState
		}
		h, err := steady.Latency.Decode()
		if err != nil {
			return fmt.Errorf("publish latency: %w", err)
		}
		pub.Merge(h)
		// At an unlimited rate nothing is late: no delay, as OMB's
		// figures of a producer on time (0).
		if steady.PublishDelay != nil {
			h, err := steady.PublishDelay.Decode()
			if err != nil {
				return fmt.Errorf("publish delay: %w", err)
			}
			delay.Merge(h)
		}
	}
	e2e := measure.NewHistogram()
	if test.count > 0 {
		h, err := test.histogram()
		if err != nil {
			return fmt.Errorf("end-to-end latency after the warm-up: %w", err)
		}
		e2e, cons = h, nil
	}
	for _, c := range cons {
		if c.EndToEnd == nil {
			continue
		}
		h, err := c.EndToEnd.Decode()
		if err != nil {
			return fmt.Errorf("end-to-end latency of %s: %w", c.Name, err)
		}
		e2e.Merge(h)
	}
	r.AggregatedPublish = figures(pub, inMs)
	r.AggregatedPublishQuantiles = quantiles(pub, inMs)
	r.AggregatedPublishDelay = figures(delay, inUs)
	r.AggregatedPublishDelayQuantiles = quantiles(delay, inUs)
	r.AggregatedEndToEnd = figures(e2e, inMs)
	r.AggregatedEndToEndQuantiles = quantiles(e2e, inMs)
	return nil
}

// Units: what kbench's microseconds are divided by for OMB's figures.
// Milliseconds as OMB's microsToMillis makes them (÷ 1000.0, not
// rounded); the publish delay stays in microseconds.
const (
	inMs = 1000.0
	inUs = 1.0
)

// figures are h's mean, percentiles and maximum, each divided by unit.
func figures(h *measure.Histogram, unit float64) Figures {
	q := func(p float64) float64 { return float64(h.Quantile(p)) / unit }
	return Figures{
		Avg: h.Mean() / unit, P50: q(0.50), P75: q(0.75), P95: q(0.95), P99: q(0.99),
		P999: q(0.999), P9999: q(0.9999), Max: float64(h.Max()) / unit,
	}
}
