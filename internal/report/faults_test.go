package report

import (
	"strings"
	"testing"
	"time"

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
		// Regression: partitions an earlier study left recovered in the
		// figures without a word.
		{"others' partitions", result.Fault{Action: "kill", Target: "broker 2", Broker: 2, AtSeconds: 10, Status: "done", BrokerReplicas: 759, PlanReplicas: 9},
			[]string{"10.0", "–", "–", "–", "–", "done"}, "broker 2 held 759 partition replicas, 9 of them the plan's: the other 750"},
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

// TestFaultAtFromFirstSend: regression: the faults table said "Times are
// from the scenario's start" and showed at_seconds, counted from the
// workloads' start, while the time charts (and the docs) count from the
// repeat's first send: a kill at 10.0 s sat at 9.6 s on the chart when the
// first record went out 0.4 s after the workloads started. The column now
// counts from the first send, as the charts, and its header says so.
func TestFaultAtFromFirstSend(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0).UTC()
	first := start.Add(400 * time.Millisecond)
	f := result.Fault{Action: "kill", Target: "broker 2", Broker: 2, AtSeconds: 10, Time: start.Add(10 * time.Second), Status: "done"}
	rep := result.Repeat{Index: 1, Faults: []result.Fault{f}, Workloads: []result.Workload{{Name: "w", Type: "produce", Producer: &result.Producer{FirstSendAt: &first}}}}
	run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{rep}}}}
	faults, _ := faultTables(run)
	if got := faults.Rows[0][3]; got != "9.6" {
		t.Errorf("at %s, want 9.6 (from the first send)", got)
	}
	if faults.Columns[3] != "at s from first send" || !strings.Contains(strings.Join(faults.Notes, " "), "seconds from the repeat's first send, where the time charts start") {
		t.Errorf("header %q, notes %q: want them to say the times count from the first send", faults.Columns[3], faults.Notes)
	}
	ws := workloadCharts(rep, rep.Workloads[0])
	if len(ws.Marks) == 0 || ws.Marks[0].At != 9.6 {
		t.Errorf("chart marks %+v, want the kill at 9.6 s as in the table", ws.Marks)
	}
}

// TestVerificationRows: a workload whose topic was not read back shows no
// counts. Regression: "lost 0" stood beside "not checked", reading as
// "nothing lost" where nothing was checked.
func TestVerificationRows(t *testing.T) {
	tests := []struct {
		name  string
		v     result.Verification
		cells []string // acked, lost, duplicated, out_of_order, unacknowledged, result
	}{
		{"passed", result.Verification{Workload: "w", Acks: "all", Acked: 600, Passed: true}, []string{"600", "0", "0", "0", "0", "passed"}},
		{"lost", result.Verification{Workload: "w", Acks: "1", Acked: 600, Lost: 12}, []string{"600", "12", "0", "0", "0", "failed"}},
		{"not read back", result.Verification{Workload: "w", Acks: "all", Acked: 600, Error: "verify: reading t back stalled for 1m0s"},
			[]string{"600", "–", "–", "–", "–", "not checked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1, Verification: []result.Verification{tt.v}}}}}}
			_, verification := faultTables(run)
			if got := verification.Rows[0][4:]; strings.Join(got, " | ") != strings.Join(tt.cells, " | ") {
				t.Errorf("cells %q, want %q", got, tt.cells)
			}
		})
	}
}
