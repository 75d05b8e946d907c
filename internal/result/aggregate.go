package result

import (
	"fmt"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// AggregateScenario fills sc.Aggregate from its repeats that ended ok; failed and
// interrupted repeats are counted in LeftOut and Errors, not in the
// statistics. A scenario with no ok repeat gets no Aggregate; when some of
// its repeats were interrupted, sc.Interrupted holds their statistics
// instead, so what they measured is shown, marked.
func AggregateScenario(sc *Scenario) error {
	var ok, interrupted []Repeat
	var agg Aggregate
	for _, rep := range sc.Repeats {
		for _, w := range rep.Workloads {
			if w.Producer != nil {
				agg.FailedRecords += w.Producer.Failed
			}
		}
		switch rep.Status {
		case StatusOK:
			ok = append(ok, rep)
			continue
		case StatusFailed:
			agg.FailedRepeats++
		case StatusInterrupted:
			interrupted = append(interrupted, rep)
		}
		agg.LeftOut++
	}
	agg.Errors = agg.FailedRecords + int64(agg.FailedRepeats)
	sc.Aggregate, sc.Interrupted = nil, nil
	from, to := ok, &sc.Aggregate
	if len(ok) == 0 {
		from, to = interrupted, &sc.Interrupted
	}
	if len(from) == 0 {
		return nil
	}
	if err := aggregate(from, &agg); err != nil {
		return fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	if len(ok) == 0 {
		agg.LeftOut -= len(interrupted)
	}
	*to = &agg
	return nil
}

// Reaggregate computes every scenario's statistics again from its
// repeats (a scenario without repeats keeps what it has).
func (r *PlanRun) Reaggregate() error {
	for i := range r.Scenarios {
		if len(r.Scenarios[i].Repeats) == 0 {
			continue
		}
		if err := AggregateScenario(&r.Scenarios[i]); err != nil {
			return err
		}
	}
	return nil
}

// series collects one figure per repeat, and the latencies to merge.
type series struct {
	records, rate, mib, p50, p95, p99, p999, maxMs, e2eP99, consume []float64
	publish, e2e                                                    []*Latency
	sections                                                        []Sections
	recordsTotal                                                    int64 // records' exact sum
}

func (s *series) addPublish(l *Latency) {
	s.p50 = append(s.p50, ms(l.P50))
	s.p95 = append(s.p95, ms(l.P95))
	s.p99 = append(s.p99, ms(l.P99))
	s.p999 = append(s.p999, ms(l.P999))
	s.maxMs = append(s.maxMs, ms(l.Max))
	s.publish = append(s.publish, l)
}

// aggregate computes agg's statistics over reps: per workload, then the
// scenario's totals.
func aggregate(reps []Repeat, agg *Aggregate) error {
	agg.Repeats = len(reps)
	var total series
	var setup []float64
	// Each workload's figures, in the order the workloads first appear.
	index := map[string]int{}
	var perW []*series
	agg.Workloads = nil
	agg.ShortSteady, agg.ShortestSteadySeconds = false, 0
	reasons := map[string]bool{}
	producers, consumers, publishers, e2es := names{}, names{}, names{}, names{}
	for _, rep := range reps {
		setup = append(setup, rep.SetupSeconds)
		var recs, rps, mps, crps float64
		var exact int64 // recs, exactly
		produced, consumed := false, false
		var prodSpans, consSpans spans
		for i := range rep.Workloads {
			w := &rep.Workloads[i]
			at, ok := index[w.Name]
			if !ok {
				at = len(perW)
				index[w.Name] = at
				perW = append(perW, &series{})
				agg.Workloads = append(agg.Workloads, WorkloadAggregate{Name: w.Name, Type: w.Type})
			}
			ws, wa := perW[at], &agg.Workloads[at]
			if w.Producer != nil {
				// The warm-up is excluded from the statistics: rates and
				// latency come from steady state when there is one.
				prod := w.Producer
				if prod.SteadyState != nil {
					prod = prod.SteadyState
					if d := prod.DurationSeconds; d > 0 && d < ShortSteadySeconds {
						agg.ShortSteady = true
						if agg.ShortestSteadySeconds == 0 || d < agg.ShortestSteadySeconds {
							agg.ShortestSteadySeconds = d
						}
					}
				}
				produced = true
				producers.add(w.Name)
				recs += float64(w.Producer.Records)
				exact += w.Producer.Records
				ws.recordsTotal += w.Producer.Records
				rps += prod.RecordsPerSec
				mps += prod.MiBPerSec
				ws.records = append(ws.records, float64(w.Producer.Records))
				ws.rate = append(ws.rate, prod.RecordsPerSec)
				ws.mib = append(ws.mib, prod.MiBPerSec)
				publishers.add(w.Name)
				ws.addPublish(&prod.Latency)
				prodSpans.add(w.Producer.Intervals)
			}
			if w.Consumer != nil {
				consumed = true
				consumers.add(w.Name)
				crps += w.Consumer.RecordsPerSec
				ws.consume = append(ws.consume, w.Consumer.RecordsPerSec)
				consSpans.add(w.Consumer.Intervals)
			}
			if w.EndToEnd != nil {
				e2es.add(w.Name)
				ws.e2eP99 = append(ws.e2eP99, ms(w.EndToEnd.P99))
				ws.e2e = append(ws.e2e, w.EndToEnd)
			}
			if w.Sections != nil {
				ws.sections = append(ws.sections, w.Sections)
			}
			if w.Generator != nil && w.Generator.Bound {
				agg.GeneratorBound = true
				wa.GeneratorBound = true
				for _, r := range w.Generator.Reasons {
					if !reasons[r] {
						reasons[r] = true
						agg.GeneratorReasons = append(agg.GeneratorReasons, fmt.Sprintf("repeat %d, %s: %s", rep.Index, w.Name, r))
					}
				}
			}
		}
		agg.ProducersInSequence = agg.ProducersInSequence || !prodSpans.overlap()
		agg.ConsumersInSequence = agg.ConsumersInSequence || !consSpans.overlap()
		if produced {
			total.records = append(total.records, recs)
			total.recordsTotal += exact
			total.rate = append(total.rate, rps)
			total.mib = append(total.mib, mps)
		}
		if consumed {
			total.consume = append(total.consume, crps)
		}
	}
	for i := range agg.Workloads {
		if err := perW[i].fill(&agg.Workloads[i]); err != nil {
			return fmt.Errorf("workload %s: %w", agg.Workloads[i].Name, err)
		}
	}
	agg.Producers, agg.Consumers = producers, consumers
	agg.Records, agg.RecordsPerSec, agg.MiBPerSec = Describe(total.records), Describe(total.rate), Describe(total.mib)
	if len(total.records) > 0 {
		agg.RecordsTotal = &total.recordsTotal
	}
	agg.SetupSeconds = Describe(setup)
	if agg.ProducersInSequence {
		// Rates of workloads that ran one after the other describe no
		// moment of the run: no total rate (the records still add up).
		agg.RecordsPerSec, agg.MiBPerSec = Stats{}, Stats{}
	}
	agg.Unstable = agg.RecordsPerSec.N > 1 && agg.RecordsPerSec.CV > UnstableCV
	if len(total.consume) > 0 && !agg.ConsumersInSequence {
		st := Describe(total.consume)
		agg.ConsumeRecordsPerSec = &st
	}
	// A latency is the scenario's only when one workload measured it:
	// merging two workloads' latencies (a loaded producer and a light
	// probe) would describe neither.
	if len(publishers) == 1 {
		w := agg.workload(publishers[0])
		agg.P50Ms, agg.P95Ms, agg.P99Ms, agg.P999Ms, agg.MaxMs = *w.P50Ms, *w.P95Ms, *w.P99Ms, *w.P999Ms, *w.MaxMs
		agg.Latency = w.Latency
	}
	if len(e2es) == 1 {
		w := agg.workload(e2es[0])
		agg.EndToEndP99Ms, agg.EndToEnd = w.EndToEndP99Ms, w.EndToEnd
	}
	return nil
}

// ProducersOverlap reports whether a repeat's producing workloads all ran
// at one moment, so that adding their rates describes the run.
func ProducersOverlap(rep Repeat) bool {
	var s spans
	for _, w := range rep.Workloads {
		if w.Producer != nil {
			s.add(w.Producer.Intervals)
		}
	}
	return s.overlap()
}

// spans are the times workloads of a repeat ran, from their interval
// series (fixed-width, from the workload's start to its end).
type spans struct{ from, to []time.Time }

func (s *spans) add(ivs []Interval) {
	if len(ivs) == 0 {
		return
	}
	last := ivs[len(ivs)-1]
	s.from = append(s.from, ivs[0].Start)
	s.to = append(s.to, last.Start.Add(time.Duration(last.Seconds*float64(time.Second))))
}

// overlap reports whether every workload was running at one moment: the
// latest start is before the earliest end. One workload, or none, does.
func (s *spans) overlap() bool {
	if len(s.from) < 2 {
		return true
	}
	latest, earliest := s.from[0], s.to[0]
	for i := range s.from {
		if s.from[i].After(latest) {
			latest = s.from[i]
		}
		if s.to[i].Before(earliest) {
			earliest = s.to[i]
		}
	}
	return latest.Before(earliest)
}

// fill sets wa's statistics from the workload's per-repeat figures.
func (s *series) fill(wa *WorkloadAggregate) error {
	describe := func(xs []float64) *Stats {
		if len(xs) == 0 {
			return nil
		}
		st := Describe(xs)
		return &st
	}
	wa.Records, wa.RecordsPerSec, wa.MiBPerSec = describe(s.records), describe(s.rate), describe(s.mib)
	if len(s.records) > 0 {
		wa.RecordsTotal = &s.recordsTotal
	}
	wa.P50Ms, wa.P95Ms, wa.P99Ms, wa.P999Ms, wa.MaxMs = describe(s.p50), describe(s.p95), describe(s.p99), describe(s.p999), describe(s.maxMs)
	wa.EndToEndP99Ms = describe(s.e2eP99)
	wa.ConsumeRecordsPerSec = describe(s.consume)
	var err error
	if len(s.publish) > 0 {
		if wa.Latency, err = MergeLatencies(s.publish); err != nil {
			return err
		}
	}
	if len(s.e2e) > 0 {
		if wa.EndToEnd, err = MergeLatencies(s.e2e); err != nil {
			return err
		}
	}
	wa.Sections, err = mergeSections(s.sections, "repeat", nil)
	return err
}

// workload returns the named workload's statistics.
func (a *Aggregate) workload(name string) *WorkloadAggregate {
	for i := range a.Workloads {
		if a.Workloads[i].Name == name {
			return &a.Workloads[i]
		}
	}
	return nil
}

// names is a list of distinct names in the order first added.
type names []string

func (n *names) add(name string) {
	for _, x := range *n {
		if x == name {
			return
		}
	}
	*n = append(*n, name)
}

func ms(us int64) float64 { return float64(us) / 1000 }

// MergeLatencies merges latencies exactly: their histograms for the
// percentiles, their exact count, sum, min and max for the rest.
func MergeLatencies(ls []*Latency) (*Latency, error) {
	for _, l := range ls {
		if err := l.settle(); err != nil { // a merge's, not yet settled
			return nil, err
		}
	}
	var total measure.HistogramSum // straight from the encodings: no histogram decoded per part
	for _, l := range ls {
		if err := total.Add(l.Histogram, l.Count, l.Sum, l.Min, l.Max, l.OverRange, l.Negative); err != nil {
			return nil, err
		}
	}
	out, err := LatencyOf(total.Histogram())
	if err != nil {
		return nil, err
	}
	return &out, nil
}
