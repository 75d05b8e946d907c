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
	h, err := l.histogram()
	if err != nil {
		return Figures{}, err
	}
	return figures(h, unit), nil
}

// histogram merges the intervals' histograms, with the exact count, sum
// and maximum (the minimum stays the buckets').
func (l *periodLatency) histogram() (*measure.Histogram, error) {
	h := measure.NewHistogram()
	for _, enc := range l.encs {
		ih, err := measure.Decode(enc)
		if err != nil {
			return nil, fmt.Errorf("an interval's histogram: %w", err)
		}
		h.Merge(ih)
	}
	if h.Count() != l.count {
		return nil, fmt.Errorf("the intervals' histograms hold %d values, their counts %d", h.Count(), l.count)
	}
	h.SetExact(l.count, int64(math.Round(l.sum)), min(h.Min(), l.max), l.max, h.OverRange(), 0)
	return h, nil
}

// join adds o's intervals to l.
func (l *periodLatency) join(o periodLatency) {
	l.sum += o.sum
	l.count += o.count
	l.max = max(l.max, o.max)
	l.encs = append(l.encs, o.encs...)
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
