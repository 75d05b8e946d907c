package result

import (
	"fmt"

	"github.com/kbench/kbench/internal/measure"
)

// AggregateScenario fills sc.Aggregate from its repeats that ended ok; failed and
// interrupted repeats are counted in LeftOut and Errors, not in the
// statistics. A scenario with no ok repeat gets no Aggregate.
func AggregateScenario(sc *Scenario) error {
	var (
		records, rate, mib, p50, p95, p99, p999, maxMs, setup, e2eP99, consume []float64
		publish, e2e                                                           []*Latency
		agg                                                                    Aggregate
		reasons                                                                = map[string]bool{}
	)
	for _, rep := range sc.Repeats {
		for _, w := range rep.Workloads {
			if w.Producer != nil {
				agg.Errors += w.Producer.Failed
			}
		}
		if rep.Status != StatusOK {
			agg.LeftOut++
			if rep.Status == StatusFailed {
				agg.Errors++
			}
			continue
		}
		agg.Repeats++
		setup = append(setup, rep.SetupSeconds)
		var recs, rps, mps, crps float64
		var lats, ends []*Latency
		hasConsume := false
		for i := range rep.Workloads {
			w := &rep.Workloads[i]
			if w.Producer != nil {
				recs += float64(w.Producer.Records)
				// The warm-up is excluded from the statistics: rates and
				// latency come from steady state when there is one.
				prod := w.Producer
				if prod.SteadyState != nil {
					prod = prod.SteadyState
				}
				rps += prod.RecordsPerSec
				mps += prod.MiBPerSec
				lats = append(lats, &prod.Latency)
			}
			if w.Consumer != nil && w.Type == "consume" {
				hasConsume = true
				crps += w.Consumer.RecordsPerSec
			}
			if w.EndToEnd != nil {
				ends = append(ends, w.EndToEnd)
			}
			if w.Generator != nil && w.Generator.Bound {
				agg.GeneratorBound = true
				for _, r := range w.Generator.Reasons {
					if !reasons[r] {
						reasons[r] = true
						agg.GeneratorReasons = append(agg.GeneratorReasons, fmt.Sprintf("repeat %d, %s: %s", rep.Index, w.Name, r))
					}
				}
			}
		}
		if hasConsume {
			consume = append(consume, crps)
		}
		if len(lats) > 0 {
			lat, err := MergeLatencies(lats)
			if err != nil {
				return fmt.Errorf("scenario %s, repeat %d: %w", sc.Name, rep.Index, err)
			}
			records = append(records, recs)
			rate = append(rate, rps)
			mib = append(mib, mps)
			p50 = append(p50, ms(lat.P50))
			p95 = append(p95, ms(lat.P95))
			p99 = append(p99, ms(lat.P99))
			p999 = append(p999, ms(lat.P999))
			maxMs = append(maxMs, ms(lat.Max))
			publish = append(publish, lats...)
		}
		if len(ends) > 0 {
			lat, err := MergeLatencies(ends)
			if err != nil {
				return fmt.Errorf("scenario %s, repeat %d: %w", sc.Name, rep.Index, err)
			}
			e2eP99 = append(e2eP99, ms(lat.P99))
			e2e = append(e2e, ends...)
		}
	}
	if agg.Repeats == 0 {
		sc.Aggregate = nil
		return nil
	}
	agg.Records, agg.RecordsPerSec, agg.MiBPerSec = Describe(records), Describe(rate), Describe(mib)
	agg.P50Ms, agg.P95Ms, agg.P99Ms, agg.P999Ms, agg.MaxMs = Describe(p50), Describe(p95), Describe(p99), Describe(p999), Describe(maxMs)
	agg.SetupSeconds = Describe(setup)
	agg.Unstable = agg.RecordsPerSec.N > 1 && agg.RecordsPerSec.CV > UnstableCV
	var err error
	if len(publish) > 0 {
		if agg.Latency, err = MergeLatencies(publish); err != nil {
			return err
		}
	}
	if len(e2e) > 0 {
		st := Describe(e2eP99)
		agg.EndToEndP99Ms = &st
		if agg.EndToEnd, err = MergeLatencies(e2e); err != nil {
			return err
		}
	}
	if len(consume) > 0 {
		st := Describe(consume)
		agg.ConsumeRecordsPerSec = &st
	}
	sc.Aggregate = &agg
	return nil
}

func ms(us int64) float64 { return float64(us) / 1000 }

// MergeLatencies merges latencies exactly: their histograms for the
// percentiles, their exact count, sum, min and max for the rest.
func MergeLatencies(ls []*Latency) (*Latency, error) {
	total := measure.NewHistogram()
	for _, l := range ls {
		h, err := l.Decode()
		if err != nil {
			return nil, err
		}
		total.Merge(h)
	}
	out, err := LatencyOf(total)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
