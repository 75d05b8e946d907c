package result

import (
	"fmt"
	"math"
)

// validate refuses a document holding figures kbench cannot have written,
// which report and compare would otherwise judge ("p99 −100%, better"):
// negative counts, rates, times and latencies, or floats past any
// measurement (1e308); a rate that is not its
// count over its time; percentiles out of order or outside their latency's
// min and max; statistics out of order; sums over a scenario's repeats
// past int64. It checks only what every kbench wrote, so that results of
// earlier versions (v1 included) still load. JSON holds no NaN or
// infinity, and a number past float64 fails as it is decoded, so every
// float here is finite. The error names the field by its JSON path.
func (d *Document) validate() error {
	v := &validator{}
	v.producer("producer", d.Producer)
	v.consumer("consumer", d.Consumer)
	d.latencies(v.latency)
	if d.Plan != nil {
		for i := range d.Plan.Scenarios {
			v.scenario(fmt.Sprintf("plan.scenarios[%d]", i), &d.Plan.Scenarios[i])
		}
	}
	return v.err
}

// validator keeps the first error found.
type validator struct{ err error }

func (v *validator) fail(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf(format, args...)
	}
}

// count: a count cannot be negative.
func (v *validator) count(path, name string, n int64) {
	if n < 0 {
		v.fail("%s.%s is %d: a count cannot be negative", path, name, n)
	}
}

// maxFigure is more than any figure kbench measures: 2^63 records in a
// nanosecond are 9.2e27 a second.
const maxFigure = 1e30

// nonNegative: a rate, a time or a size is neither negative nor past
// maxFigure.
func (v *validator) nonNegative(path, name string, x float64) {
	switch {
	case x < 0:
		v.fail("%s.%s is %g: it cannot be negative", path, name, x)
	case x > maxFigure:
		v.fail("%s.%s is %g: more than kbench measures (2^63 records in a nanosecond are 9.2e27 a second)", path, name, x)
	}
}

// seconds is a time kbench measured: not negative, and 0 or at least a
// nanosecond (time.Duration's unit), so that a rate over it stays finite.
func (v *validator) seconds(path, name string, s float64) {
	v.nonNegative(path, name, s)
	if s > 0 && s < 0.999e-9 {
		v.fail("%s.%s is %g: under a nanosecond, which kbench does not measure", path, name, s)
	}
}

// rate is n per second over secs (divided by scale: 1, or 2^20 for MiB):
// as kbench computes its rates, 0 when secs is 0. Within 0.1%: a time
// read back from seconds is rounded to the nanosecond.
func (v *validator) rate(path, name string, got float64, n int64, of string, secs float64, over string, scale float64) {
	want := 0.0
	if secs > 0 {
		want = float64(n) / secs / scale
	}
	if math.Abs(got-want) > 1e-3*want+1e-9 {
		v.fail("%s.%s is %g, but %s ÷ %s is %g (%d over %g s)", path, name, got, of, over, want, n, secs)
	}
}

func (v *validator) producer(path string, p *Producer) {
	for ; p != nil && v.err == nil; p, path = p.SteadyState, path+".steady_state" {
		v.count(path, "clients", int64(p.Clients))
		v.count(path, "records", p.Records)
		v.count(path, "bytes", p.Bytes)
		v.count(path, "failed", p.Failed)
		v.count(path, "unresolved", p.Unresolved)
		v.count(path, "not_sent", p.NotSent)
		v.seconds(path, "duration_seconds", p.DurationSeconds)
		v.nonNegative(path, "records_per_sec", p.RecordsPerSec)
		v.nonNegative(path, "mib_per_sec", p.MiBPerSec)
		v.nonNegative(path, "target_rate", p.TargetRate)
		v.nonNegative(path, "cpu_seconds", p.CPUSeconds)
		v.rate(path, "records_per_sec", p.RecordsPerSec, p.Records, "records", p.DurationSeconds, "duration_seconds", 1)
		v.rate(path, "mib_per_sec", p.MiBPerSec, p.Bytes, "bytes", p.DurationSeconds, "duration_seconds", 1<<20)
		v.intervals(path, p.Intervals)
	}
}

func (v *validator) consumer(path string, c *Consumer) {
	if c == nil {
		return
	}
	v.count(path, "clients", int64(c.Clients))
	v.count(path, "records", c.Records)
	v.count(path, "bytes", c.Bytes)
	v.count(path, "rebalances", int64(c.Rebalances))
	v.seconds(path, "duration_seconds", c.DurationSeconds)
	v.seconds(path, "reading_seconds", c.ReadingSeconds)
	v.nonNegative(path, "records_per_sec", c.RecordsPerSec)
	v.nonNegative(path, "mib_per_sec", c.MiBPerSec)
	v.nonNegative(path, "lifetime_records_per_sec", c.LifetimeRecordsPerSec)
	v.nonNegative(path, "cpu_seconds", c.CPUSeconds)
	// The rates are over the reading time; results written before there
	// was one (reading_seconds absent) over the whole run.
	secs, over := c.ReadingSeconds, "reading_seconds"
	if secs == 0 {
		secs, over = c.DurationSeconds, "duration_seconds"
	}
	v.rate(path, "records_per_sec", c.RecordsPerSec, c.Records, "records", secs, over, 1)
	v.rate(path, "mib_per_sec", c.MiBPerSec, c.Bytes, "bytes", secs, over, 1<<20)
	if c.LifetimeRecordsPerSec != 0 {
		v.rate(path, "lifetime_records_per_sec", c.LifetimeRecordsPerSec, c.Records, "records", c.DurationSeconds, "duration_seconds", 1)
	}
	v.intervals(path, c.Intervals)
}

// latency: every figure is a count or microseconds, none negative; the
// percentiles rise from p50 to p99_99 and, with values, lie within min and
// max. kbench before 2026-11-24 did not clamp them to max: a percentile
// is a histogram bucket's highest value, up to 1/1024 past it (3
// significant digits).
func (v *validator) latency(path string, l *Latency) {
	if v.err != nil {
		return
	}
	v.count(path, "count", l.Count)
	v.count(path, "over_range", l.OverRange)
	v.count(path, "negative", l.Negative)
	v.count(path, "backlog", l.Backlog)
	v.nonNegative(path, "mean", l.Mean)
	ps := []struct {
		name string
		us   int64
	}{{"min", l.Min}, {"p50", l.P50}, {"p90", l.P90}, {"p95", l.P95}, {"p99", l.P99}, {"p99_9", l.P999}, {"p99_99", l.P9999}, {"max", l.Max}, {"sum", l.Sum}}
	for _, p := range ps {
		if p.us < 0 {
			v.fail("%s.%s is %d µs: a latency cannot be negative", path, p.name, p.us)
		}
	}
	for i := 2; i < 7; i++ {
		if ps[i].us < ps[i-1].us {
			v.fail("%s.%s is %d µs, below %s (%d µs): percentiles rise from p50 to p99_99", path, ps[i].name, ps[i].us, ps[i-1].name, ps[i-1].us)
		}
	}
	if l.Count == 0 {
		return
	}
	if l.Min > l.Max {
		v.fail("%s.min is %d µs, above max (%d µs)", path, l.Min, l.Max)
	}
	if l.P50 < l.Min {
		v.fail("%s.p50 is %d µs, below min (%d µs)", path, l.P50, l.Min)
	}
	if l.P9999 > l.Max+l.Max/1024+1 {
		v.fail("%s.p99_99 is %d µs, above max (%d µs)", path, l.P9999, l.Max)
	}
}

// intervals: an interval's counts, rate and latencies are not negative
// (nor past maxFigure), its percentiles rise, and its exact latency min is not above its max.
// Percentiles above max_latency_ms are not refused: kbench before
// 2026-11-28 wrote them (2 significant digits, not clamped).
func (v *validator) intervals(path string, ivs []Interval) {
	for i := range ivs {
		if v.err != nil {
			return
		}
		iv := &ivs[i]
		if iv.Records < 0 || iv.Bytes < 0 || iv.Failed < 0 || iv.LatencyCount < 0 || iv.LatencySumUs < 0 || iv.LatencyMinUs < 0 || iv.LatencyMaxUs < 0 ||
			!(iv.Seconds >= 0 && iv.RecordsPerSec >= 0 && iv.AvgLatencyMs >= 0 && iv.MaxLatencyMs >= 0 && iv.P50LatencyMs >= 0) ||
			max(iv.Seconds, iv.RecordsPerSec, iv.AvgLatencyMs, iv.MaxLatencyMs, iv.P999LatencyMs) > maxFigure {
			v.intervalNegative(fmt.Sprintf("%s.intervals[%d]", path, i), iv)
			continue
		}
		at := func() string { return fmt.Sprintf("%s.intervals[%d]", path, i) }
		switch {
		case iv.P99LatencyMs < iv.P50LatencyMs:
			v.fail("%s.p99_latency_ms is %g, below p50_latency_ms (%g): percentiles rise", at(), iv.P99LatencyMs, iv.P50LatencyMs)
		case iv.P999LatencyMs < iv.P99LatencyMs:
			v.fail("%s.p99_9_latency_ms is %g, below p99_latency_ms (%g): percentiles rise", at(), iv.P999LatencyMs, iv.P99LatencyMs)
		case iv.LatencyCount > 0 && iv.LatencyMinUs > iv.LatencyMaxUs:
			v.fail("%s.latency_min_us is %d, above latency_max_us (%d)", at(), iv.LatencyMinUs, iv.LatencyMaxUs)
		}
	}
}

// intervalNegative names an interval's negative figure (or one past
// maxFigure).
func (v *validator) intervalNegative(at string, iv *Interval) {
	for _, c := range []struct {
		name string
		n    int64
	}{{"records", iv.Records}, {"bytes", iv.Bytes}, {"failed", iv.Failed}, {"latency_count", iv.LatencyCount}, {"latency_sum_us", iv.LatencySumUs}, {"latency_min_us", iv.LatencyMinUs}, {"latency_max_us", iv.LatencyMaxUs}} {
		v.count(at, c.name, c.n)
	}
	for _, x := range []struct {
		name string
		x    float64
	}{{"seconds", iv.Seconds}, {"records_per_sec", iv.RecordsPerSec}, {"avg_latency_ms", iv.AvgLatencyMs}, {"max_latency_ms", iv.MaxLatencyMs},
		{"p50_latency_ms", iv.P50LatencyMs}, {"p99_latency_ms", iv.P99LatencyMs}, {"p99_9_latency_ms", iv.P999LatencyMs}} {
		v.nonNegative(at, x.name, x.x)
	}
}

func (v *validator) scenario(path string, sc *Scenario) {
	// Sums over the repeats (failed records, records, lost and
	// duplicated ones) are taken in int64 by the aggregate, the report
	// and compare.
	var failed, records, lost, dup int64
	sum := func(total *int64, n int64, at func() string) {
		if n > 0 && *total > math.MaxInt64-int64(len(sc.Repeats))-n {
			v.fail("%s is %d: with the scenario's other repeats it passes the largest count kbench keeps (2^63-1)", at(), n)
			return
		}
		*total += max(n, 0)
	}
	for j := range sc.Repeats {
		rep := &sc.Repeats[j]
		rat := fmt.Sprintf("%s.repeats[%d]", path, j)
		v.seconds(rat, "setup_seconds", rep.SetupSeconds)
		for k := range rep.Workloads {
			w := &rep.Workloads[k]
			wat := fmt.Sprintf("%s.workloads[%d]", rat, k)
			v.producer(wat+".producer", w.Producer)
			v.consumer(wat+".consumer", w.Consumer)
			if p := w.Producer; p != nil {
				sum(&failed, p.Failed, func() string { return wat + ".producer.failed" })
				sum(&records, p.Records, func() string { return wat + ".producer.records" })
			}
		}
		for k := range rep.Faults {
			v.fault(fmt.Sprintf("%s.faults[%d]", rat, k), &rep.Faults[k])
		}
		for k := range rep.Verification {
			ver := &rep.Verification[k]
			vat := fmt.Sprintf("%s.verification[%d]", rat, k)
			for _, c := range []struct {
				name string
				n    int64
			}{{"acked", ver.Acked}, {"read", ver.Read}, {"lost", ver.Lost}, {"duplicated", ver.Duplicated}, {"out_of_order", ver.OutOfOrder}, {"unacknowledged", ver.Unacknowledged}} {
				v.count(vat, c.name, c.n)
			}
			sum(&lost, ver.Lost, func() string { return vat + ".lost" })
			sum(&dup, ver.Duplicated, func() string { return vat + ".duplicated" })
		}
	}
	v.aggregate(path+".aggregate", sc.Aggregate)
	v.aggregate(path+".interrupted", sc.Interrupted)
}

// fault: its measured times are not negative (compare judges them).
func (v *validator) fault(path string, f *Fault) {
	v.nonNegative(path, "action_ms", f.ActionMs)
	for _, t := range []struct {
		name string
		ms   *float64
	}{{"election_ms", f.ElectionMs}, {"unavailable_ms", f.UnavailableMs}, {"isr_shrunk_ms", f.ISRShrunkMs}, {"isr_recovered_ms", f.ISRRecoveredMs}} {
		if t.ms != nil {
			v.nonNegative(path, t.name, *t.ms)
		}
	}
	for i, p := range f.Partitions {
		if p.UnavailableMs != nil {
			v.nonNegative(fmt.Sprintf("%s.partitions[%d]", path, i), "unavailable_ms", *p.UnavailableMs)
		}
	}
}

// aggregate: its counts and statistics hold (an older kbench's aggregate
// of a scenario without repeats is compared as it is).
func (v *validator) aggregate(path string, a *Aggregate) {
	if a == nil {
		return
	}
	v.count(path, "repeats", int64(a.Repeats))
	v.count(path, "left_out", int64(a.LeftOut))
	v.count(path, "failed_records", a.FailedRecords)
	v.count(path, "failed_repeats", int64(a.FailedRepeats))
	v.count(path, "errors", a.Errors)
	if a.RecordsTotal != nil {
		v.count(path, "records_total", *a.RecordsTotal)
	}
	for _, s := range []struct {
		name string
		s    *Stats
	}{{"records", &a.Records}, {"records_per_sec", &a.RecordsPerSec}, {"mib_per_sec", &a.MiBPerSec}, {"p50_ms", &a.P50Ms}, {"p95_ms", &a.P95Ms},
		{"p99_ms", &a.P99Ms}, {"p99_9_ms", &a.P999Ms}, {"max_ms", &a.MaxMs}, {"end_to_end_p99_ms", a.EndToEndP99Ms}, {"consume_records_per_sec", a.ConsumeRecordsPerSec}, {"setup_seconds", &a.SetupSeconds}} {
		v.stats(path+"."+s.name, s.s)
	}
	for i := range a.Workloads {
		w := &a.Workloads[i]
		wat := fmt.Sprintf("%s.workloads[%d]", path, i)
		if w.RecordsTotal != nil {
			v.count(wat, "records_total", *w.RecordsTotal)
		}
		for _, s := range []struct {
			name string
			s    *Stats
		}{{"records", w.Records}, {"records_per_sec", w.RecordsPerSec}, {"mib_per_sec", w.MiBPerSec}, {"p50_ms", w.P50Ms}, {"p95_ms", w.P95Ms},
			{"p99_ms", w.P99Ms}, {"p99_9_ms", w.P999Ms}, {"max_ms", w.MaxMs}, {"end_to_end_p99_ms", w.EndToEndP99Ms}, {"consume_records_per_sec", w.ConsumeRecordsPerSec}} {
			v.stats(wat+"."+s.name, s.s)
		}
	}
}

// stats: a sample of a quantity that cannot be negative; its mean and
// median lie within its min and max (within rounding), its spread is not
// negative, its interval not inverted.
func (v *validator) stats(path string, s *Stats) {
	if s == nil || v.err != nil {
		return
	}
	if s.N < 0 {
		v.fail("%s.n is %d: a count cannot be negative", path, s.N)
		return
	}
	if s.N == 0 {
		return
	}
	for _, x := range []struct {
		name string
		x    float64
	}{{"mean", s.Mean}, {"median", s.Median}, {"min", s.Min}, {"max", s.Max}, {"stdev", s.Stdev}, {"cv", s.CV}} {
		v.nonNegative(path, x.name, x.x)
	}
	slack := 1e-9 * s.Max
	switch {
	case s.Min > s.Max:
		v.fail("%s.min is %g, above max (%g)", path, s.Min, s.Max)
	case s.Median < s.Min-slack || s.Median > s.Max+slack:
		v.fail("%s.median is %g, outside min %g and max %g", path, s.Median, s.Min, s.Max)
	case s.Mean < s.Min-slack || s.Mean > s.Max+slack:
		v.fail("%s.mean is %g, outside min %g and max %g", path, s.Mean, s.Min, s.Max)
	case s.CI95Low != nil && s.CI95High != nil && *s.CI95Low > *s.CI95High:
		// Not refused below 0: kbench before 2026-11-25 wrote mean ± t·s/√n.
		v.fail("%s.ci95_low is %g, above ci95_high (%g)", path, *s.CI95Low, *s.CI95High)
	}
}
