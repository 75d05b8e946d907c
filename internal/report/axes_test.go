package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestChartAxesDoNotExaggerate guards issue 33 item 7: a records/s axis
// from 994 to 1,000 drew a 0.6% difference as the chart's whole height,
// latencies from 3 ms to 15,000 ms on a linear axis flattened the small
// ones, and some charts started at 0 and others not. Rate axes start at
// 0; latency axes are logarithmic when their values span two decades.
func TestChartAxesDoNotExaggerate(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		p50, max []float64 // ms, per interval
		wantLog  bool
	}{
		{"latencies over decades", []float64{3, 4, 3}, []float64{40, 15_000, 20}, true},
		{"latencies within a decade", []float64{3, 4, 3}, []float64{9, 15, 12}, false},
	}
	for _, tt := range tests {
		var ivs []result.Interval
		for i := range tt.p50 {
			ivs = append(ivs, result.Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1, Records: 1000,
				RecordsPerSec: 994 + float64(i)*3, P50LatencyMs: tt.p50[i], P99LatencyMs: tt.p50[i], P999LatencyMs: tt.max[i], MaxLatencyMs: tt.max[i]})
		}
		rep := result.Repeat{StartedAt: start}
		ws := workloadCharts(rep, result.Workload{Name: "w", Type: "produce", Producer: &result.Producer{Intervals: ivs}})
		if !ws.RateAxis.Zero || ws.RateAxis.Log {
			t.Errorf("%s: rate axis %+v, want from 0", tt.name, ws.RateAxis)
		}
		if ws.LatencyAxis.Log != tt.wantLog || ws.LatencyAxis.Zero == tt.wantLog {
			t.Errorf("%s: latency axis %+v, want log %v (else from 0)", tt.name, ws.LatencyAxis, tt.wantLog)
		}
		// The page reads them from the chart data.
		b, err := json.Marshal(ws)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"rate_axis":{"zero":true}`) || !strings.Contains(string(b), `"latency_axis":{`) {
			t.Errorf("%s: chart data %s", tt.name, b)
		}
	}
}

// TestMatrixMetricAxes: against a swept parameter, rates start at 0,
// latencies spanning decades are logarithmic on a numeric x, and a
// categorical x's bars start at 0 whatever they hold.
func TestMatrixMetricAxes(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	wide := []matrixSeries{{Mean: []*float64{p(3), p(400)}, Min: []*float64{p(2), p(300)}, Max: []*float64{p(4), p(15_000)}}}
	narrow := []matrixSeries{{Mean: []*float64{p(994), p(1000)}, Min: []*float64{p(994), p(999)}, Max: []*float64{p(995), p(1000)}}}
	tests := []struct {
		name    string
		unit    string
		series  []matrixSeries
		numeric bool
		want    yAxis
	}{
		{"records/s close together", "records/s", narrow, true, yAxis{Zero: true}},
		{"latency over decades", "ms", wide, true, yAxis{Log: true}},
		{"latency within a decade", "ms", narrow, true, yAxis{Zero: true}},
		{"bars of latency over decades", "ms", wide, false, yAxis{Zero: true}},
	}
	for _, tt := range tests {
		if got := metricAxis(tt.unit, tt.series, tt.numeric); got != tt.want {
			t.Errorf("%s: axis %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
