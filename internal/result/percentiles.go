package result

import (
	"fmt"
	"strings"
)

// CheckPercentiles reports every percentile of the document that lies
// outside its exact bounds: a latency's percentiles outside its min and
// max or out of order, an interval's above its max_latency_ms, a
// plateau's outside its latency's min and max. Percentiles come from
// histograms, whose buckets reach past the values recorded; kbench clamps
// them (measure.Clamp), and this says whether every figure it wrote was.
// nil when all are within.
func CheckPercentiles(d *Document) error {
	var bad []string
	d.latencies(func(path string, l *Latency) {
		if l.Count == 0 {
			return
		}
		ps := []struct {
			name string
			v    int64
		}{{"p50", l.P50}, {"p90", l.P90}, {"p95", l.P95}, {"p99", l.P99}, {"p99_9", l.P999}, {"p99_99", l.P9999}}
		prev := l.Min
		for _, p := range ps {
			if p.v < l.Min || p.v > l.Max || p.v < prev {
				bad = append(bad, fmt.Sprintf("%s.%s %d outside min %d, max %d or below the percentile before it", path, p.name, p.v, l.Min, l.Max))
			}
			prev = max(prev, p.v)
		}
	})
	d.producers(func(path string, p *Producer) {
		for i, iv := range p.Intervals {
			for _, q := range []struct {
				name string
				v    float64
			}{{"p50_latency_ms", iv.P50LatencyMs}, {"p99_latency_ms", iv.P99LatencyMs}, {"p99_9_latency_ms", iv.P999LatencyMs}} {
				if q.v < 0 || q.v > iv.MaxLatencyMs {
					bad = append(bad, fmt.Sprintf("%s.intervals[%d].%s %g above max_latency_ms %g", path, i, q.name, q.v, iv.MaxLatencyMs))
				}
			}
		}
		for i, pl := range p.Plateaus {
			lo, hi := float64(pl.Latency.Min)/1000, float64(pl.Latency.Max)/1000
			if pl.Records > 0 && (pl.P50Ms < lo || pl.P50Ms > hi || pl.P99Ms < lo || pl.P99Ms > hi) {
				bad = append(bad, fmt.Sprintf("%s.plateaus[%d] p50_ms %g, p99_ms %g outside %g to %g", path, i, pl.P50Ms, pl.P99Ms, lo, hi))
			}
		}
	})
	if len(bad) > 0 {
		return fmt.Errorf("percentiles outside their exact bounds: %s", strings.Join(bad, "; "))
	}
	return nil
}

// producers calls f with every producer section of the document (steady
// states included) and its JSON path.
func (d *Document) producers(f func(path string, p *Producer)) {
	each := func(p *Producer, path string) {
		for ; p != nil; p, path = p.SteadyState, path+".steady_state" {
			f(path, p)
		}
	}
	each(d.Producer, "producer")
	if d.Plan == nil {
		return
	}
	for i := range d.Plan.Scenarios {
		sc := &d.Plan.Scenarios[i]
		for j := range sc.Repeats {
			for k := range sc.Repeats[j].Workloads {
				each(sc.Repeats[j].Workloads[k].Producer, fmt.Sprintf("plan.scenarios[%d].repeats[%d].workloads[%d].producer", i, j, k))
			}
		}
	}
}
