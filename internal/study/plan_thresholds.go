package study

import (
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// checkThresholds tests each workload's thresholds against what the
// scenario measured so far: the mean over repeats that ended ok, as the
// summary shows it; errors summed over every repeat.
func checkThresholds(sc *plan.Scenario, rsc *result.Scenario) []result.ThresholdResult {
	var out []result.ThresholdResult
	for _, w := range sc.Workloads {
		for _, th := range w.Thresholds {
			tr := result.ThresholdResult{Scenario: rsc.Name, Workload: w.Name, Metric: th.Metric, Condition: th.Condition}
			v, ok := thresholdValue(rsc, w.Name, th.Metric)
			if ok {
				tr.Value, tr.Passed = v, th.Holds(v)
			} else {
				tr.Missing = true // not measured: the threshold cannot hold
			}
			out = append(out, tr)
		}
	}
	return out
}

func thresholdValue(rsc *result.Scenario, workload, metric string) (float64, bool) {
	if metric == "errors" {
		var n float64
		found := false
		for _, rep := range rsc.Repeats {
			for _, w := range rep.Workloads {
				if w.Name != workload {
					continue
				}
				found = true
				if w.Producer != nil {
					n += float64(w.Producer.Failed)
				}
				if w.Consumer != nil {
					for _, c := range w.Consumer.Errors {
						n += float64(c)
					}
				}
			}
		}
		return n, found
	}
	var sum float64
	var count int
	for _, rep := range rsc.Repeats {
		if rep.Status != result.StatusOK {
			continue
		}
		for _, w := range rep.Workloads {
			if w.Name != workload {
				continue
			}
			if v, ok := workloadMetric(w, metric); ok {
				sum += v
				count++
			}
		}
	}
	if count == 0 {
		return 0, false
	}
	return sum / float64(count), true
}

// workloadMetric reads one metric of one workload's repeat. Latency is
// publish latency for a produce workload, end-to-end for the others.
func workloadMetric(w result.Workload, metric string) (float64, bool) {
	var rate, mib float64
	var lat *result.Latency
	switch {
	case w.Producer != nil:
		p := w.Producer
		if p.SteadyState != nil {
			p = p.SteadyState
		}
		rate, mib, lat = p.RecordsPerSec, p.MiBPerSec, &p.Latency
		if w.EndToEnd != nil {
			lat = w.EndToEnd // it read its own records: end-to-end
		}
	case w.Consumer != nil:
		rate, mib, lat = w.Consumer.RecordsPerSec, w.Consumer.MiBPerSec, w.EndToEnd
	default:
		return 0, false
	}
	switch metric {
	case "records_per_sec":
		return rate, true
	case "mb_per_sec":
		return mib, true
	}
	if lat == nil || lat.Count == 0 {
		return 0, false
	}
	us := map[string]int64{"p50_ms": lat.P50, "p95_ms": lat.P95, "p99_ms": lat.P99, "p99_9_ms": lat.P999, "max_ms": lat.Max}[metric]
	return float64(us) / 1000, true
}
