package brokermetrics

import (
	"fmt"
	"io"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// values are one scrape's samples by series: the sample's name, then its
// labels sorted, as `name{a="x",b="y"}`.
type values map[string]float64

// parse reads the Prometheus text exposition format.
func parse(r io.Reader) (values, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse the Prometheus text format: %w", err)
	}
	out := values{}
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			var v float64
			switch {
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Untyped != nil:
				v = m.GetUntyped().GetValue()
			default:
				continue // summaries and histograms: kbench reads none
			}
			out[series(name, m.GetLabel())] = v
		}
	}
	return out, nil
}

// series is a sample's key: its name and its labels, sorted.
func series(name string, labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return name
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

// counter finds a counter by its name without _total: exporters built on
// client_java 1.x (the JMX exporter 1.x) add the suffix, older ones wrote
// the name as their rules gave it. Both are the same counter.
func (v values) counter(name, labels string) (float64, bool) {
	if x, ok := v[name+"_total"+labels]; ok {
		return x, true
	}
	x, ok := v[name+labels]
	return x, ok
}

// gauge finds a gauge by its exact name.
func (v values) gauge(name, labels string) (float64, bool) {
	x, ok := v[name+labels]
	return x, ok
}
