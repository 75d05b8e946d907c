package compare

import (
	"github.com/kbench/kbench/internal/result"
)

// Metric is one figure compared, named as in result.json and --fail-if.
type Metric struct {
	Name         string
	HigherBetter bool
	Unit         string // shown after numbers in messages
	What         string // what measuring it takes, for "neither result measured ..."
	prec         int    // decimals shown
	// repeats: taken from every repeat, whatever its status (failed
	// records and repeats, faults, verification), so compared even where
	// no repeat ended ok; the others come from the repeats that ended ok.
	repeats bool
}

// Metrics are the figures compared, in the order shown.
var Metrics = []Metric{
	{Name: "records_per_sec", HigherBetter: true, Unit: "records/s", What: "produce throughput", prec: 1},
	{Name: "mib_per_sec", HigherBetter: true, Unit: "MiB/s", What: "produce throughput", prec: 2},
	{Name: "consume_records_per_sec", HigherBetter: true, Unit: "records/s", What: "consume throughput", prec: 1},
	{Name: "p50_ms", Unit: "ms", What: "publish latency", prec: 3},
	{Name: "p95_ms", Unit: "ms", What: "publish latency", prec: 3},
	{Name: "p99_ms", Unit: "ms", What: "publish latency", prec: 3},
	{Name: "p99_9_ms", Unit: "ms", What: "publish latency", prec: 3},
	{Name: "max_ms", Unit: "ms", What: "publish latency", prec: 3},
	{Name: "e2e_p99_ms", Unit: "ms", What: "end-to-end latency", prec: 3},
	{Name: "errors", What: "errors", prec: 0, repeats: true},
	{Name: "election_ms", Unit: "ms", What: "fault measurements (election_ms)", prec: 0, repeats: true},
	{Name: "unavailable_ms", Unit: "ms", What: "fault measurements (unavailable_ms)", prec: 0, repeats: true},
	{Name: "isr_shrunk_ms", Unit: "ms", What: "fault measurements (isr_shrunk_ms)", prec: 0, repeats: true},
	{Name: "isr_recovered_ms", Unit: "ms", What: "fault measurements (isr_recovered_ms)", prec: 0, repeats: true},
	{Name: "lost", Unit: "records", What: "verification (lost records)", prec: 0, repeats: true},
	{Name: "duplicated", Unit: "records", What: "verification (duplicated records)", prec: 0, repeats: true},
	{Name: "broker_cpu_per_mrec", Unit: "CPU s per M records", What: "the brokers' cost (a cluster kbench started)", prec: 2},
	{Name: "broker_rss_peak_mib", Unit: "MiB", What: "the brokers' cost (a cluster kbench started)", prec: 0},
	{Name: "broker_written_per_record", Unit: "B", What: "the brokers' cost (a cluster kbench started)", prec: 0},
	{Name: "broker_records_per_core", HigherBetter: true, Unit: "records per broker CPU s", What: "the brokers' cost (a cluster kbench started)", prec: 0},
	{Name: "broker_handler_busy_pct", Unit: "%", What: "the brokers' request handlers (their metrics endpoints)", prec: 1},
	{Name: "broker_disk_busy_pct", Unit: "%", What: "the busiest device under the brokers' data (a cluster kbench started)", prec: 1},
}

// metricNames lists Metrics' names, for messages and suggestions.
func metricNames() []string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return names
}

func metricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Value is one side's figure for a scenario: the mean over repeats and,
// from result.MinCIRepeats repeats on, its 95% confidence interval.
type Value struct {
	Mean      float64
	Low, High float64 // the interval, when HasCI
	HasCI     bool
	N         int  // repeats behind the mean
	Exact     bool // a count (errors): no spread to judge
}

func statsValue(s result.Stats) Value {
	v := Value{Mean: s.Mean, N: s.N}
	if s.CI95Low != nil && s.CI95High != nil && s.N >= result.MinCIRepeats {
		v.Low, v.High, v.HasCI = *s.CI95Low, *s.CI95High, true
	}
	return v
}

// one is a figure measured once: its spread is unknown.
func one(x float64) Value { return Value{Mean: x, N: 1} }

// scenariosOf gives a plan scenario's figures: one entry for the scenario,
// and when its workloads measure the same figures (a producer beside an
// end-to-end probe) one more per workload, "scenario (workload)", whose
// figures are that workload's alone; the scenario's own are then the
// totals.
func scenariosOf(sc result.Scenario) []scenario {
	a := sc.Aggregate
	v := aggregateValues(a)
	for name, x := range repeatValues(sc) {
		v[name] = x
	}
	out := []scenario{{sc.Name, v, a != nil}}
	if a == nil || len(a.Producers) < 2 && len(a.Consumers) < 2 {
		return out
	}
	for _, w := range a.Workloads {
		v := map[string]Value{}
		put := func(name string, s *result.Stats) {
			if s != nil && s.N > 0 {
				v[name] = statsValue(*s)
			}
		}
		put("records_per_sec", w.RecordsPerSec)
		put("mib_per_sec", w.MiBPerSec)
		put("consume_records_per_sec", w.ConsumeRecordsPerSec)
		put("p50_ms", w.P50Ms)
		put("p95_ms", w.P95Ms)
		put("p99_ms", w.P99Ms)
		put("p99_9_ms", w.P999Ms)
		put("max_ms", w.MaxMs)
		put("e2e_p99_ms", w.EndToEndP99Ms)
		if len(v) > 0 {
			out = append(out, scenario{sc.Name + " (" + w.Name + ")", v, true})
		}
	}
	return out
}

// aggregateValues takes a plan scenario's figures from its aggregate; none
// when no repeat ended ok.
func aggregateValues(a *result.Aggregate) map[string]Value {
	v := map[string]Value{}
	if a == nil {
		return v
	}
	v["errors"] = Value{Mean: float64(a.Errors), N: a.Repeats, Exact: true}
	put := func(name string, s *result.Stats) {
		// A figure no repeat measured has N = 0: a plan without
		// producers, or a latency two workloads measured (each has its
		// own, see scenariosOf).
		if s != nil && s.N > 0 {
			v[name] = statsValue(*s)
		}
	}
	put("records_per_sec", &a.RecordsPerSec)
	put("mib_per_sec", &a.MiBPerSec)
	put("p50_ms", &a.P50Ms)
	put("p95_ms", &a.P95Ms)
	put("p99_ms", &a.P99Ms)
	put("p99_9_ms", &a.P999Ms)
	put("max_ms", &a.MaxMs)
	put("e2e_p99_ms", a.EndToEndP99Ms)
	put("consume_records_per_sec", a.ConsumeRecordsPerSec)
	return v
}

// repeatValues takes the figures measured in every repeat, whatever its
// status: errors (failed records, and repeats that failed), the faults'
// times (per repeat the longest of its faults, then over the repeats
// that measured one) and the verification's lost and duplicated records
// (summed). A repeat whose records were lost with acks=all failed: its
// faults and losses are what is being compared.
func repeatValues(sc result.Scenario) map[string]Value {
	v := map[string]Value{}
	if len(sc.Repeats) == 0 {
		return v // an aggregate alone (errors from aggregateValues)
	}
	var errs, lost, dup int64
	verified := false
	times := map[string][]float64{}
	for _, rep := range sc.Repeats {
		if rep.Status == result.StatusFailed {
			errs++
		}
		for _, w := range rep.Workloads {
			if w.Producer != nil {
				errs += w.Producer.Failed
			}
		}
		longest := map[string]float64{}
		for _, f := range rep.Faults {
			for name, ms := range map[string]*float64{"election_ms": f.ElectionMs, "unavailable_ms": f.UnavailableMs, "isr_shrunk_ms": f.ISRShrunkMs, "isr_recovered_ms": f.ISRRecoveredMs} {
				if ms != nil {
					longest[name] = max(longest[name], *ms)
				}
			}
		}
		for name, ms := range longest {
			times[name] = append(times[name], ms)
		}
		for _, ver := range rep.Verification {
			if ver.Error != "" {
				continue // not checked
			}
			verified = true
			lost += ver.Lost
			dup += ver.Duplicated
		}
	}
	for name, xs := range brokerFigures(sc.Repeats) {
		v[name] = statsValue(result.Describe(xs))
	}
	n := len(sc.Repeats)
	v["errors"] = Value{Mean: float64(errs), N: n, Exact: true}
	for name, xs := range times {
		v[name] = statsValue(result.Describe(xs))
	}
	if verified {
		v["lost"] = Value{Mean: float64(lost), N: n, Exact: true}
		v["duplicated"] = Value{Mean: float64(dup), N: n, Exact: true}
	}
	return v
}

// dropInValues derives a drop-in tool's figures the way the plan aggregate
// does: steady state when there is one, latency in ms, a failed run
// counting as one error besides its failed records.
func dropInValues(doc *result.Document) map[string]Value {
	var errs int64
	if doc.Status == result.StatusFailed {
		errs++
	}
	v := map[string]Value{}
	if p := doc.Producer; p != nil {
		errs += p.Failed
		if p.SteadyState != nil {
			p = p.SteadyState
		}
		v["records_per_sec"] = one(p.RecordsPerSec)
		v["mib_per_sec"] = one(p.MiBPerSec)
		v["p50_ms"] = one(ms(p.Latency.P50))
		v["p95_ms"] = one(ms(p.Latency.P95))
		v["p99_ms"] = one(ms(p.Latency.P99))
		v["p99_9_ms"] = one(ms(p.Latency.P999))
		v["max_ms"] = one(ms(p.Latency.Max))
	}
	if c := doc.Consumer; c != nil {
		v["consume_records_per_sec"] = one(c.RecordsPerSec)
	}
	if e := doc.EndToEnd; e != nil {
		v["e2e_p99_ms"] = one(ms(e.P99))
	}
	x := float64(errs)
	v["errors"] = Value{Mean: x, N: 1, Exact: true}
	return v
}

func ms(us int64) float64 { return float64(us) / 1000 }

// brokerFigures takes the brokers' cost from each repeat that ended ok
// and measured it, by metric name.
func brokerFigures(reps []result.Repeat) map[string][]float64 {
	out := map[string][]float64{}
	s := result.BrokerSeriesOf(reps)
	for name, xs := range map[string][]float64{"broker_cpu_per_mrec": s.CPUPerMRec, "broker_rss_peak_mib": s.RSSPeakMiB, "broker_written_per_record": s.WrittenPerRecord,
		"broker_records_per_core": s.RecordsPerCore, "broker_handler_busy_pct": s.HandlerBusyPct, "broker_disk_busy_pct": s.DiskBusyPct} {
		if len(xs) > 0 {
			out[name] = xs
		}
	}
	return out
}
