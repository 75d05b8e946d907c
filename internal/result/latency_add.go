package result

import (
	"encoding/json"
	"fmt"

	"github.com/kbench/kbench/internal/measure"
)

// A Latency merged with Add holds its histogram typed (hist) and leaves
// Histogram empty until it is written: merging N slices decodes each
// once and encodes the sum once, at result.Write, not at every merge.

// Add merges o's latencies into l exactly: the histograms for the
// percentiles, the exact count, sum, min and max for the rest. An end-to-end
// latency's source and backlog merge too ("mixed" sources).
func (l *Latency) Add(o *Latency) error {
	if o == nil {
		return nil
	}
	h, err := l.typed()
	if err != nil {
		return err
	}
	oh := o.hist
	if oh == nil {
		if oh, err = o.Decode(); err != nil {
			return err
		}
	}
	h.Merge(oh)
	source, backlog := l.Source, l.Backlog+o.Backlog
	switch {
	case o.Source == "" || o.Source == source:
	case source == "":
		source = o.Source
	default:
		source = "mixed"
	}
	*l = latencyFigures(h)
	l.hist, l.Source, l.Backlog = h, source, backlog
	return nil
}

// typed is l's histogram, decoded once and kept for the next Add.
func (l *Latency) typed() (*measure.Histogram, error) {
	if l.hist != nil {
		return l.hist, nil
	}
	h, err := l.Decode()
	if err != nil {
		return nil, err
	}
	l.hist = h
	return h, nil
}

// latencyFigures are h's figures, its histogram typed and not yet
// encoded.
func latencyFigures(h *measure.Histogram) Latency {
	return Latency{
		Unit:      "us",
		Count:     h.Count(),
		Sum:       h.Sum(),
		Min:       h.Min(),
		Mean:      h.Mean(),
		P50:       h.Quantile(0.50),
		P90:       h.Quantile(0.90),
		P95:       h.Quantile(0.95),
		P99:       h.Quantile(0.99),
		P999:      h.Quantile(0.999),
		P9999:     h.Quantile(0.9999),
		Max:       h.Max(),
		OverRange: h.OverRange(),
		Negative:  h.Negative(),
		hist:      h,
	}
}

// plainLatency is Latency without its methods: what is written.
type plainLatency Latency

// MarshalJSON writes l with its histogram encoded (a merged one is encoded
// here, once).
func (l Latency) MarshalJSON() ([]byte, error) {
	if l.hist != nil && l.Histogram == "" {
		enc, err := l.hist.Encode()
		if err != nil {
			return nil, fmt.Errorf("latency histogram: %w", err)
		}
		l.Histogram = enc
	}
	return json.Marshal(plainLatency(l))
}
