package report

// yAxis is how a chart's y axis is drawn, decided here so that the page
// only follows it and no chart exaggerates: a records/s axis from 994 to
// 1,000 drew a 0.6% difference as the chart's whole height, and latencies
// from 3 ms to 15,000 ms on a linear axis flattened the small ones.
type yAxis struct {
	// Zero: the axis starts at 0 (rates, counts, latencies on a linear
	// axis), so a height compares with the others.
	Zero bool `json:"zero,omitempty"`
	// Log: a logarithmic axis, for latencies spanning two decades or more.
	Log bool `json:"log,omitempty"`
}

// logSpan is how many times the smallest positive value the largest must
// be for a latency axis to be logarithmic: two decades.
const logSpan = 100

// rateAxis is a rate's or a count's axis: from 0.
func rateAxis() yAxis { return yAxis{Zero: true} }

// latencyAxis is the axis of latency series (ms): logarithmic when their
// positive values span two decades or more, else linear from 0.
func latencyAxis(series ...[]*float64) yAxis {
	lo, hi := 0.0, 0.0
	for _, s := range series {
		for _, v := range s {
			if v == nil || *v <= 0 {
				continue
			}
			if lo == 0 || *v < lo {
				lo = *v
			}
			hi = max(hi, *v)
		}
	}
	if lo > 0 && hi >= lo*logSpan {
		return yAxis{Log: true}
	}
	return yAxis{Zero: true}
}

// metricAxis is a summary metric's axis against the swept parameter:
// latencies (ms) on a numeric x as latencyAxis over every repeat's
// spread; rates, and the bars of a categorical x, from 0 (a bar's height
// is its value).
func metricAxis(unit string, series []matrixSeries, numeric bool) yAxis {
	if unit != "ms" || !numeric {
		return rateAxis()
	}
	var all [][]*float64
	for _, s := range series {
		all = append(all, s.Min, s.Mean, s.Max)
	}
	return latencyAxis(all...)
}
