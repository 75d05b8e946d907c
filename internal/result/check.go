package result

import (
	"fmt"

	"github.com/kbench/kbench/internal/measure"
)

// check decodes every histogram of the document, so that a damaged file is
// refused before any report is written from it. The error names the field
// as a path into the JSON (plan.scenarios[0].repeats[1].workloads[0].producer.latency.histogram).
func (d *Document) check() error {
	var first error
	d.latencies(func(path string, l *Latency) {
		if first != nil {
			return
		}
		if _, err := l.Decode(); err != nil {
			first = fmt.Errorf("%s.histogram: %w", path, err)
		}
	})
	if first == nil {
		first = d.checkIntervals()
	}
	return first
}

// checkIntervals decodes the intervals' histograms of a drop-in run or a
// plan run.
func (d *Document) checkIntervals() error {
	if d.Producer != nil {
		if err := checkSeries("producer", d.Producer.Intervals); err != nil {
			return err
		}
	}
	if d.Consumer != nil {
		if err := checkSeries("consumer", d.Consumer.Intervals); err != nil {
			return err
		}
	}
	if d.Plan == nil {
		return nil
	}
	for i, sc := range d.Plan.Scenarios {
		for j, rep := range sc.Repeats {
			for k, w := range rep.Workloads {
				at := fmt.Sprintf("plan.scenarios[%d].repeats[%d].workloads[%d]", i, j, k)
				// An end-to-end workload has both series.
				if w.Producer != nil {
					if err := checkSeries(at+".producer", w.Producer.Intervals); err != nil {
						return err
					}
				}
				if w.Consumer != nil {
					if err := checkSeries(at+".consumer", w.Consumer.Intervals); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// checkSeries decodes every histogram of a series' intervals; at is the
// series' JSON path.
func checkSeries(at string, ivs []Interval) error {
	for n := range ivs {
		iv := &ivs[n]
		if err := iv.checkHistogram(); err != nil {
			return fmt.Errorf("%s.intervals[%d].latency_histogram: %w", at, n, err)
		}
		for field, enc := range map[string]string{"publish_histogram": iv.PublishHistogram, "publish_delay_histogram": iv.PublishDelayHistogram, "end_to_end_histogram": iv.EndToEndHistogram} {
			if enc == "" {
				continue
			}
			if _, err := measure.Decode(enc); err != nil {
				return fmt.Errorf("%s.intervals[%d].%s: %w", at, n, field, err)
			}
		}
	}
	return nil
}

// checkHistogram checks the interval's latency histogram as
// latencyHistogram reads it, without building it.
func (iv *Interval) checkHistogram() error {
	if iv.LatencyHistogram == "" {
		if iv.LatencyCount != 0 {
			return fmt.Errorf("no histogram but latency_count is %d", iv.LatencyCount)
		}
		return nil
	}
	n, err := measure.SeriesCount(iv.LatencyHistogram)
	if err != nil {
		return err
	}
	if n != iv.LatencyCount {
		return fmt.Errorf("histogram holds %d values but latency_count is %d", n, iv.LatencyCount)
	}
	return nil
}

// latencies calls f with every latency of the document and its JSON path.
func (d *Document) latencies(f func(path string, l *Latency)) {
	producer(d.Producer, "producer", f)
	if d.EndToEnd != nil {
		f("end_to_end_latency", d.EndToEnd)
	}
	if d.Plan == nil {
		return
	}
	for i := range d.Plan.Scenarios {
		sc := &d.Plan.Scenarios[i]
		at := fmt.Sprintf("plan.scenarios[%d]", i)
		for j := range sc.Repeats {
			for k := range sc.Repeats[j].Workloads {
				w := &sc.Repeats[j].Workloads[k]
				wat := fmt.Sprintf("%s.repeats[%d].workloads[%d]", at, j, k)
				producer(w.Producer, wat+".producer", f)
				if w.EndToEnd != nil {
					f(wat+".end_to_end_latency", w.EndToEnd)
				}
			}
		}
		aggregateLatencies(sc.Aggregate, at+".aggregate", f)
		aggregateLatencies(sc.Interrupted, at+".interrupted", f)
	}
}

func producer(p *Producer, path string, f func(string, *Latency)) {
	for ; p != nil; p, path = p.SteadyState, path+".steady_state" {
		f(path+".latency", &p.Latency)
		if p.PublishDelay != nil {
			f(path+".publish_delay", p.PublishDelay)
		}
	}
}

func aggregateLatencies(a *Aggregate, path string, f func(string, *Latency)) {
	if a == nil {
		return
	}
	if a.Latency != nil {
		f(path+".latency", a.Latency)
	}
	if a.EndToEnd != nil {
		f(path+".end_to_end_latency", a.EndToEnd)
	}
	for i := range a.Workloads {
		w := &a.Workloads[i]
		at := fmt.Sprintf("%s.workloads[%d]", path, i)
		if w.Latency != nil {
			f(at+".latency", w.Latency)
		}
		if w.EndToEnd != nil {
			f(at+".end_to_end_latency", w.EndToEnd)
		}
	}
}
