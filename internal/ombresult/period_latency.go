package ombresult

import (
	"fmt"
	"math"

	"github.com/kbench/kbench/internal/measure"
)

// periodLatency gathers one latency over a period's intervals: the exact
// sum, count and maximum (µs) from each interval's exact mean and maximum,
// and the intervals' histograms, merged for the percentiles.
type periodLatency struct {
	sum   float64
	count int64
	max   int64
	encs  []string
}

// add counts an interval holding count latencies of mean avgUs and
// maximum maxUs, enc their histogram.
func (l *periodLatency) add(count int64, avgUs, maxUs float64, enc string) {
	if count <= 0 {
		return
	}
	l.sum += avgUs * float64(count)
	l.count += count
	l.max = max(l.max, int64(math.Round(maxUs)))
	if enc != "" {
		l.encs = append(l.encs, enc)
	}
}

// figures are the period's mean, percentiles (from the merged
// histograms, kept within the exact maximum) and maximum, divided by unit.
func (l *periodLatency) figures(unit float64) (Figures, error) {
	if l.count == 0 {
		return Figures{}, nil
	}
	h := measure.NewHistogram()
	for _, enc := range l.encs {
		ih, err := measure.Decode(enc)
		if err != nil {
			return Figures{}, fmt.Errorf("an interval's histogram: %w", err)
		}
		h.Merge(ih)
	}
	f := figures(h, unit)
	within := func(v float64) float64 { return min(v, float64(l.max)/unit) }
	f.P50, f.P75, f.P95, f.P99, f.P999, f.P9999 = within(f.P50), within(f.P75), within(f.P95), within(f.P99), within(f.P999), within(f.P9999)
	f.Avg, f.Max = l.sum/float64(l.count)/unit, float64(l.max)/unit
	return f, nil
}

// histogramCount is how many values an interval's histogram holds (0 for
// none or one that does not decode: the document check refuses those).
func histogramCount(enc string) int64 {
	if enc == "" {
		return 0
	}
	h, err := measure.Decode(enc)
	if err != nil {
		return 0
	}
	return h.Count()
}
