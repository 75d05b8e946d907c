package result

import (
	"strings"
	"testing"
)

// TestCheckPercentiles: the checker issue 33 item 3 is judged by finds a
// percentile past its exact bounds wherever result.json has one.
func TestCheckPercentiles(t *testing.T) {
	t.Parallel()
	good := func() *Producer {
		return &Producer{
			Latency:   Latency{Count: 3, Min: 10, P50: 20, P90: 30, P95: 30, P99: 40, P999: 40, P9999: 40, Max: 40},
			Intervals: []Interval{{MaxLatencyMs: 970.543, P50LatencyMs: 500, P99LatencyMs: 970.543, P999LatencyMs: 970.543}},
			Plateaus:  []Plateau{{Records: 2, P50Ms: 0.02, P99Ms: 0.04, Latency: Latency{Min: 10, Max: 40}}},
		}
	}
	tests := []struct {
		name  string
		spoil func(p *Producer)
		want  string // "" : no error
	}{
		{"within", func(*Producer) {}, ""},
		{"interval p99 above max", func(p *Producer) { p.Intervals[0].P99LatencyMs = 970.751 }, "producer.intervals[0].p99_latency_ms"},
		{"p99 above max", func(p *Producer) { p.Latency.P99 = 41 }, "producer.latency.p99"},
		{"p50 below min", func(p *Producer) { p.Latency.P50 = 9 }, "producer.latency.p50"},
		{"out of order", func(p *Producer) { p.Latency.P90 = 15 }, "producer.latency.p90"},
		{"steady state", func(p *Producer) { p.SteadyState = good(); p.SteadyState.Latency.P9999 = 50 }, "producer.steady_state.latency.p99_99"},
		{"plateau", func(p *Producer) { p.Plateaus[0].P99Ms = 0.05 }, "producer.plateaus[0]"},
	}
	for _, tt := range tests {
		p := good()
		tt.spoil(p)
		err := CheckPercentiles(&Document{Producer: p})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one naming %s", tt.name, err, tt.want)
		}
	}
}
