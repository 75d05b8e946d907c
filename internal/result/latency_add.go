package result

import (
	"encoding/json"
	"fmt"

	"github.com/kbench/kbench/internal/measure"
)

// A Latency merged with Add holds the sum of its parts' histograms
// (sum, added bucket by bucket from their encodings, measure.HistogramSum)
// and leaves Histogram and the percentiles empty until it is settled (a
// merge's result: MergeRepeats) or written: merging N slices adds each
// once and encodes the sum once, not at every Add.

// Add merges o's latencies into l exactly: the histograms for the
// percentiles, the exact count, sum, min and max for the rest. An
// end-to-end latency's source and backlog merge too ("mixed" sources).
// The percentiles are known once l is settled (or written).
func (l *Latency) Add(o *Latency) error {
	if o == nil {
		return nil
	}
	if l.sum == nil {
		l.sum = &measure.HistogramSum{}
		if err := l.sum.Add(l.Histogram, l.Count, l.Sum, l.Min, l.Max, l.OverRange, l.Negative); err != nil {
			return err
		}
	}
	if err := o.settle(); err != nil { // a merge's own parts are settled; this is for safety
		return err
	}
	if err := l.sum.Add(o.Histogram, o.Count, o.Sum, o.Min, o.Max, o.OverRange, o.Negative); err != nil {
		return err
	}
	if o.Count > 0 {
		if l.Count == 0 || o.Min < l.Min {
			l.Min = o.Min
		}
		l.Max = max(l.Max, o.Max)
	}
	l.Unit = "us"
	l.Count += o.Count
	l.Sum += o.Sum
	l.OverRange += o.OverRange
	l.Negative += o.Negative
	l.Mean = 0
	if l.Count > 0 {
		l.Mean = float64(l.Sum) / float64(l.Count)
	}
	l.P50, l.P90, l.P95, l.P99, l.P999, l.P9999 = 0, 0, 0, 0, 0, 0
	l.Histogram = ""
	switch {
	case o.Source == "" || o.Source == l.Source:
	case l.Source == "":
		l.Source = o.Source
	default:
		l.Source = "mixed"
	}
	l.Backlog += o.Backlog
	return nil
}

// plainLatency is Latency without its methods: what is written.
type plainLatency Latency

// MarshalJSON writes l settled (a merged one is encoded here).
func (l Latency) MarshalJSON() ([]byte, error) {
	if err := l.settle(); err != nil { // l is a copy: the merge's sum is left as it is
		return nil, err
	}
	return json.Marshal(plainLatency(l))
}

// settle computes a merged latency's percentiles and encodes its
// histogram, once: the latency is then as LatencyOf gives it.
func (l *Latency) settle() error {
	if l == nil || l.sum == nil {
		return nil
	}
	set, err := LatencyOf(l.sum.Histogram())
	if err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	set.Source, set.Backlog = l.Source, l.Backlog
	*l = set
	return nil
}

// settleWorkload settles every latency of a merged workload.
func settleWorkload(w *Workload) error {
	var ls []*Latency
	for _, p := range []*Producer{w.Producer, steadyOf(w.Producer)} {
		if p == nil {
			continue
		}
		ls = append(ls, &p.Latency, p.PublishDelay, p.SendLatency)
		if p.Transactions != nil {
			ls = append(ls, &p.Transactions.CommitLatency)
		}
	}
	if c := w.Consumer; c != nil && c.Share != nil {
		ls = append(ls, c.Share.AckLatency)
	}
	ls = append(ls, w.EndToEnd)
	for _, l := range ls {
		if err := l.settle(); err != nil {
			return err
		}
	}
	return nil
}

func steadyOf(p *Producer) *Producer {
	if p == nil {
		return nil
	}
	return p.SteadyState
}
