package grouplag

import (
	"testing"
	"time"

	"github.com/kbench/kbench/internal/leaktest"
	"github.com/kbench/kbench/internal/result"
)

func TestMain(m *testing.M) { leaktest.Main(m, nil) }

// TestRecoveries: after a fault, how long until the group's lag is back
// at or under its level before the fault, once it rose above it.
func TestRecoveries(t *testing.T) {
	start := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	series := func(lags ...int64) []result.LagPoint {
		var out []result.LagPoint
		for i, l := range lags {
			out = append(out, result.LagPoint{ElapsedSeconds: float64(i), Records: l})
		}
		return out
	}
	fault := func(at float64) result.Fault {
		return result.Fault{Action: "kill", Target: "broker 2", Time: start.Add(time.Duration(at * float64(time.Second)))}
	}
	ms := func(v float64) *float64 { return &v }
	tests := []struct {
		name    string
		samples []result.LagPoint
		fault   result.Fault
		want    []result.GroupRecovery
	}{
		{"rises and recovers", series(10, 12, 11, 500, 900, 300, 8, 5), fault(2.5),
			[]result.GroupRecovery{{Fault: "kill broker 2", LagBefore: 11, PeakLag: 900, RecoveredMs: ms(3500)}}},
		{"never rises", series(10, 12, 11, 9, 10), fault(1.5), []result.GroupRecovery{{Fault: "kill broker 2", LagBefore: 12, PeakLag: 12, RecoveredMs: ms(0)}}},
		{"not recovered in the repeat", series(0, 0, 100, 200), fault(1.5), []result.GroupRecovery{{Fault: "kill broker 2", LagBefore: 0, PeakLag: 200}}},
		{"a fault that never happened", series(0, 1), result.Fault{Action: "kill", Target: "broker 2"}, nil},
		{"before the first sample", series(0, 1), fault(-1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := recoveries(tt.samples, []result.Fault{tt.fault}, start)
			if len(got) != len(tt.want) {
				t.Fatalf("%+v, want %+v", got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Fault != w.Fault || g.LagBefore != w.LagBefore || g.PeakLag != w.PeakLag || (g.RecoveredMs == nil) != (w.RecoveredMs == nil) || g.RecoveredMs != nil && *g.RecoveredMs != *w.RecoveredMs {
					t.Errorf("%+v (recovered %v), want %+v (recovered %v)", g, g.RecoveredMs, w, w.RecoveredMs)
				}
			}
		})
	}
}
