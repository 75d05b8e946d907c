package report

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestFaultRows: each fault's row says what was measured, or in words what
// happened instead. Regression: a fault that never happened showed "at s"
// 0.0, and an election that came back with the broker read "no election
// within the bound".
func TestFaultRows(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	tests := []struct {
		name  string
		f     result.Fault
		cells []string // at s, election_ms, unavailable_ms, isr_shrunk_ms, isr_recovered_ms, status
		note  string
	}{
		{"election", result.Fault{Action: "kill", Target: "broker 2", Broker: 2, AtSeconds: 10.04, ElectionMs: ms(9012.4), UnavailableMs: ms(9400), ISRShrunkMs: ms(8900.2), Status: "done"},
			[]string{"10.0", "9012", "9400", "8900", "–", "done"}, ""},
		{"no other replica", result.Fault{Action: "kill", Target: "broker 2", Broker: 2, AtSeconds: 10, Status: "done",
			ElectionNote: "none: t-1 has no other replica and came back with broker 2 after 25.3 s"},
			[]string{"10.0", "none: t-1 has no other replica and came back with broker 2 after 25.3 s", "–", "–", "–", "done"}, ""},
		{"some came back", result.Fault{Action: "kill", Target: "broker 2", Broker: 2, AtSeconds: 10, Status: "done", ElectionMs: ms(9000),
			ElectionNote: "t-1 has no other replica and came back with broker 2 after 25.3 s"},
			[]string{"10.0", "9000; t-1 has no other replica and came back with broker 2 after 25.3 s", "–", "–", "–", "done"}, ""},
		{"bound ran out", result.Fault{Action: "restart", Target: "broker 2", Broker: 2, AtSeconds: 30, Status: "done", TimedOut: []string{"isr_recovered"}, ISRNote: "not within 120 s"},
			[]string{"30.0", "–", "–", "–", "not within 120 s", "done"}, ""},
		{"written before notes", result.Fault{Action: "kill", Target: "broker 2", Broker: 2, AtSeconds: 30, Status: "done", TimedOut: []string{"election"}},
			[]string{"30.0", "not within the bound", "–", "–", "–", "done"}, ""},
		{"not reached", result.Fault{Action: "pause", Target: "broker 3", Broker: -1, Status: "not reached", Note: "sending ended at 30.2 s, before its time (35.0 s)"},
			[]string{"–", "–", "–", "–", "–", "not reached"}, "pause broker 3: not reached: sending ended at 30.2 s, before its time (35.0 s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1, Faults: []result.Fault{tt.f}}}}}}
			faults, _ := faultTables(run)
			row := faults.Rows[0]
			got := row[3:]
			if strings.Join(got, " | ") != strings.Join(tt.cells, " | ") {
				t.Errorf("cells %q, want %q", got, tt.cells)
			}
			if tt.note != "" && !strings.Contains(strings.Join(faults.Notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", faults.Notes, tt.note)
			}
		})
	}
}
