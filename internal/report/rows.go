package report

import (
	"strings"

	"github.com/kbench/kbench/internal/result"
)

// row is one line of the results table (summary.md, summary.csv and
// report.html): a scenario, or, when its workloads measure the same
// figures, one of its workloads or their total. A nil figure was not
// measured.
type row struct {
	sc *result.Scenario
	// workload is "" on a scenario's only row; else the workload's name,
	// or for the total row "total: a + b", naming what it adds up.
	workload    string
	total       bool
	measured    bool // false: no repeat ended ok, nor was one interrupted
	interrupted bool // the figures are the interrupted repeats'
	repeats     int
	leftOut     int

	records, rate, mib, p50, p95, p99, p999, maxMs, e2e, consume *result.Stats
	// recordsTotal is records' exact sum over the repeats (nil in
	// results of kbench before it).
	recordsTotal *int64

	unstable, bound bool
}

// perWorkload says whether the table needs a row per workload: some
// scenario has two workloads measuring the same figure (two producers, two
// consumers, a loaded producer beside an end-to-end probe). Their figures
// are then never added up or merged into one row, but for a total row of
// the rates, which names the workloads it adds up.
func perWorkload(run *result.PlanRun) bool {
	for _, sc := range run.Scenarios {
		if a := aggregateOf(&sc); a != nil && (len(a.Producers) > 1 || len(a.Consumers) > 1) {
			return true
		}
	}
	return false
}

// aggregateOf is the statistics a scenario's rows show: over the repeats
// that ended ok, else over the interrupted ones.
func aggregateOf(sc *result.Scenario) *result.Aggregate {
	if sc.Aggregate != nil {
		return sc.Aggregate
	}
	return sc.Interrupted
}

// tableRows gives the rows of the results table, scenario by scenario.
func tableRows(run *result.PlanRun, split bool) []row {
	var out []row
	for i := range run.Scenarios {
		sc := &run.Scenarios[i]
		a := aggregateOf(sc)
		base := row{sc: sc, leftOut: len(sc.Repeats)}
		if a == nil {
			out = append(out, base)
			continue
		}
		base.measured, base.interrupted = true, sc.Aggregate == nil
		base.repeats, base.leftOut = a.Repeats, a.LeftOut
		if !split {
			r := base
			r.records, r.rate, r.mib = measured(&a.Records), measured(&a.RecordsPerSec), measured(&a.MiBPerSec)
			r.recordsTotal = a.RecordsTotal
			r.p50, r.p95, r.p99, r.p999, r.maxMs = measured(&a.P50Ms), measured(&a.P95Ms), measured(&a.P99Ms), measured(&a.P999Ms), measured(&a.MaxMs)
			r.e2e, r.consume = a.EndToEndP99Ms, a.ConsumeRecordsPerSec
			r.unstable, r.bound = a.Unstable, a.GeneratorBound
			out = append(out, r)
			continue
		}
		for _, w := range a.Workloads {
			r := base
			r.workload = w.Name
			r.records, r.rate, r.mib, r.recordsTotal = w.Records, w.RecordsPerSec, w.MiBPerSec, w.RecordsTotal
			r.p50, r.p95, r.p99, r.p999, r.maxMs = w.P50Ms, w.P95Ms, w.P99Ms, w.P999Ms, w.MaxMs
			r.e2e, r.consume, r.bound = w.EndToEndP99Ms, w.ConsumeRecordsPerSec, w.GeneratorBound
			if r.rate == nil && r.e2e == nil && r.consume == nil {
				continue // measured nothing the table shows
			}
			// The scenario's stability is judged on its total rate: on
			// the producer's own row when it is the only one.
			r.unstable = a.Unstable && len(a.Producers) == 1 && a.Producers[0] == w.Name
			out = append(out, r)
		}
		t := base
		t.total = true
		t.workload = totalLabel(a)
		if len(a.Producers) > 0 {
			t.records, t.rate, t.mib = &a.Records, measured(&a.RecordsPerSec), measured(&a.MiBPerSec)
			t.recordsTotal = a.RecordsTotal
		}
		t.consume = a.ConsumeRecordsPerSec
		t.unstable = a.Unstable && len(a.Producers) > 1
		out = append(out, t)
	}
	return out
}

// totalLabel names what a total row adds up: the producers' records and
// rates, the consumers' rates; workloads that ran one after the other get
// no total rate, and the label says so.
func totalLabel(a *result.Aggregate) string {
	var parts []string
	if len(a.Producers) > 0 {
		p := strings.Join(a.Producers, " + ")
		if a.ProducersInSequence && len(a.Producers) > 1 {
			p += " (in sequence: records added, not rates)"
		}
		parts = append(parts, p)
	}
	if len(a.Consumers) > 0 {
		c := strings.Join(a.Consumers, " + ")
		if a.ConsumersInSequence && len(a.Consumers) > 1 {
			c += " (in sequence: rates not added)"
		}
		parts = append(parts, c)
	}
	return "total: " + strings.Join(parts, " + ")
}

// measured is s, or nil when no repeat measured it.
func measured(s *result.Stats) *result.Stats {
	if s.N == 0 {
		return nil
	}
	return s
}
