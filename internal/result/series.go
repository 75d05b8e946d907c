package result

import (
	"fmt"
	"slices"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// latencyHistogram rebuilds the interval's latency histogram with its exact
// statistics. An interval with no histogram gives nil: one that measured
// no latency, or one of a v1 document.
func (iv *Interval) latencyHistogram() (*measure.SeriesHistogram, error) {
	if iv.LatencyHistogram == "" {
		if iv.LatencyCount != 0 {
			return nil, fmt.Errorf("no histogram but latency_count is %d", iv.LatencyCount)
		}
		return nil, nil
	}
	h, err := measure.DecodeSeries(iv.LatencyHistogram)
	if err != nil {
		return nil, err
	}
	if n := h.Count(); n != iv.LatencyCount {
		return nil, fmt.Errorf("histogram holds %d values but latency_count is %d", n, iv.LatencyCount)
	}
	h.SetExact(iv.LatencyCount, iv.LatencySumUs, iv.LatencyMinUs, iv.LatencyMaxUs)
	return h, nil
}

// hasLatency says whether the interval measured latencies, with or without
// a histogram.
func (iv *Interval) hasLatency() bool {
	return iv.LatencyCount > 0 || iv.AvgLatencyMs > 0 || iv.MaxLatencyMs > 0 || iv.P50LatencyMs > 0
}

// SetHistogram keeps h in the interval: the exact count, sum, min and max
// beside the histogram. The columns (mean, max, percentiles) are left as
// they are: the reporter's own. A nil h (no latency measured) sets nothing.
func (iv *Interval) SetHistogram(h *measure.SeriesHistogram) {
	if h == nil {
		return
	}
	iv.LatencyCount, iv.LatencySumUs, iv.LatencyMinUs, iv.LatencyMaxUs = h.Count(), h.Sum(), h.Min(), h.Max()
	iv.LatencyHistogram = h.Encode()
}

// SetLatency is SetHistogram, and sets the mean, max and percentile columns
// from h too: those of a merged interval. An empty h leaves them all zero.
func (iv *Interval) SetLatency(h *measure.SeriesHistogram) {
	iv.SetHistogram(h)
	iv.AvgLatencyMs, iv.MaxLatencyMs, iv.P50LatencyMs, iv.P99LatencyMs, iv.P999LatencyMs = 0, 0, 0, 0, 0
	if h == nil || h.Count() == 0 {
		return
	}
	iv.AvgLatencyMs = float64(h.Sum()) / float64(h.Count()) / 1000
	iv.MaxLatencyMs = float64(h.Max()) / 1000
	iv.P50LatencyMs = float64(h.Quantile(0.50)) / 1000
	iv.P99LatencyMs = float64(h.Quantile(0.99)) / 1000
	iv.P999LatencyMs = float64(h.Quantile(0.999)) / 1000
}

// MergeSeries merges interval series measured on one clock (a workload's
// clients, and the workers running one scenario; repeats once their
// series are moved onto one clock) into one series. Intervals are aligned
// on their absolute Start: those starting at the same instant are one
// interval of the result, so a series missing an interval, or holding an
// empty one, changes nothing there, and empty intervals are kept. Counts
// and bytes add up; latencies merge exactly from the intervals' histograms
// and exact count, sum, min and max, and their percentile columns are read
// from the merged histogram. An interval with latencies but no histogram
// (a v1 document) makes its merge an upper bound (UpperBound). The width
// of a merged interval is the longest of its parts' (a folded first or
// last interval spans more than one width).
func MergeSeries(series ...[]Interval) ([]Interval, error) {
	return mergeSeriesWithin(0, series...)
}

// mergeSeriesWithin is MergeSeries with intervals that start within tol
// of the earliest of them taken as one (distributed workers' intervals
// close on the same grid of clocks that differ a little); the merged
// interval starts at the earliest. Two intervals of one series are never
// taken as one.
func mergeSeriesWithin(tol time.Duration, series ...[]Interval) ([]Interval, error) {
	type tagged struct {
		iv     Interval
		series int
	}
	var all []tagged
	for k, s := range series {
		for _, iv := range s {
			all = append(all, tagged{iv, k})
		}
	}
	slices.SortStableFunc(all, func(a, b tagged) int { return a.iv.Start.Compare(b.iv.Start) })
	var out []Interval
	var parts [][]Interval
	var first time.Time
	var in map[int]bool // the series of the current group
	for _, t := range all {
		if len(parts) == 0 || t.iv.Start.Sub(first) > tol || in[t.series] {
			first, in = t.iv.Start, map[int]bool{}
			out = append(out, Interval{})
			parts = append(parts, nil)
		}
		in[t.series] = true
		parts[len(parts)-1] = append(parts[len(parts)-1], t.iv)
	}
	for i, ps := range parts {
		m, err := mergeIntervals(ps)
		if err != nil {
			return nil, fmt.Errorf("merge the intervals starting at %s: %w", ps[0].Start.Format(time.RFC3339Nano), err)
		}
		out[i] = m
	}
	slices.SortStableFunc(out, func(a, b Interval) int { return a.Start.Compare(b.Start) })
	return out, nil
}

// mergeIntervals merges intervals starting at the same instant.
func mergeIntervals(ps []Interval) (Interval, error) {
	m := Interval{Start: ps[0].Start, Steady: true}
	lat := measure.NewSeriesHistogram()
	var delaySum float64
	bound := false
	var boundAvg float64 // a v1 mean, weighted by records
	var boundRecs int64
	// OMB's histograms, made when a part has one: an HdrHistogram of
	// kbench's range takes a few hundred KB.
	var pub, delay, e2e *measure.Histogram
	var pubN, delayN, e2eN int
	for _, iv := range ps {
		m.Seconds = max(m.Seconds, iv.Seconds)
		m.ElapsedSeconds = max(m.ElapsedSeconds, iv.ElapsedSeconds)
		m.Records += iv.Records
		m.Bytes += iv.Bytes
		m.Failed += iv.Failed
		m.Steady = m.Steady && iv.Steady
		m.Final = m.Final || iv.Final
		m.UpperBound = m.UpperBound || iv.UpperBound
		// Every acknowledged record has a send delay: its mean weighs by
		// records.
		delaySum += iv.PublishDelayAvgUs * float64(iv.Records)
		m.PublishDelayMaxUs = max(m.PublishDelayMaxUs, iv.PublishDelayMaxUs)
		for _, h := range []struct {
			enc string
			to  **measure.Histogram
			n   *int
		}{{iv.PublishHistogram, &pub, &pubN}, {iv.PublishDelayHistogram, &delay, &delayN}, {iv.EndToEndHistogram, &e2e, &e2eN}} {
			if h.enc == "" {
				continue
			}
			d, err := measure.Decode(h.enc)
			if err != nil {
				return Interval{}, err
			}
			if *h.to == nil {
				*h.to = d
			} else {
				(*h.to).Merge(d)
			}
			*h.n++
		}
		has := iv.LatencyHistogram != ""
		switch {
		case has:
			// Straight from the encoding: no histogram per part.
			if err := lat.AddEncoded(iv.LatencyHistogram, iv.LatencyCount, iv.LatencySumUs, iv.LatencyMinUs, iv.LatencyMaxUs); err != nil {
				return Interval{}, err
			}
		case iv.LatencyCount != 0:
			return Interval{}, fmt.Errorf("no histogram but latency_count is %d", iv.LatencyCount)
		case iv.hasLatency():
			bound = true
		}
		if has || iv.hasLatency() {
			// The columns of every part, for an upper bound.
			boundAvg += iv.AvgLatencyMs * float64(iv.Records)
			boundRecs += iv.Records
			m.MaxLatencyMs = max(m.MaxLatencyMs, iv.MaxLatencyMs)
			m.P50LatencyMs = max(m.P50LatencyMs, iv.P50LatencyMs)
			m.P99LatencyMs = max(m.P99LatencyMs, iv.P99LatencyMs)
			m.P999LatencyMs = max(m.P999LatencyMs, iv.P999LatencyMs)
		}
	}
	if m.Records > 0 {
		m.PublishDelayAvgUs = delaySum / float64(m.Records)
	}
	if m.Seconds > 0 {
		m.RecordsPerSec = float64(m.Records) / m.Seconds
	}
	var err error
	if m.PublishHistogram, err = encodeIf(pub, pubN); err != nil {
		return Interval{}, err
	}
	if m.PublishDelayHistogram, err = encodeIf(delay, delayN); err != nil {
		return Interval{}, err
	}
	if m.EndToEndHistogram, err = encodeIf(e2e, e2eN); err != nil {
		return Interval{}, err
	}
	if bound || m.UpperBound {
		m.UpperBound = true
		if boundRecs > 0 {
			m.AvgLatencyMs = boundAvg / float64(boundRecs)
		}
		return m, nil
	}
	m.SetLatency(lat)
	return m, nil
}

// encodeIf encodes h when n histograms went into it.
func encodeIf(h *measure.Histogram, n int) (string, error) {
	if n == 0 {
		return "", nil
	}
	return h.Encode()
}
