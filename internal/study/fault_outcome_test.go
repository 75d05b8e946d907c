package study

import (
	"testing"

	"github.com/kbench/kbench/internal/faults/timeline"
	"github.com/kbench/kbench/internal/result"
)

// TestCutOutcome: issue 41: four of seven acks=all leader-partition runs
// showed no election and the report left the reader to guess why; the
// fault's outcome now says what was cut, whether the leader was fenced,
// and how long writes got no acknowledgement.
func TestCutOutcome(t *testing.T) {
	t.Parallel()
	ms := func(v float64) *float64 { return &v }
	led := []result.FaultPartition{{Topic: "t", Partition: 0, From: 3, To: -1}}
	tests := []struct {
		name string
		f    result.Fault
		cut  string
		acks []string
		want string
	}{
		{"cut from the quorum, elected", result.Fault{Status: "done", Partitions: led, ElectionMs: ms(9585), ISRShrunkMs: ms(9898), UnavailableMs: ms(11388)},
			timeline.CutQuorum, []string{"all"},
			"leader cut from the other brokers and the controller quorum: fenced, new leaders elected after 9.6 s; it left an ISR after 9.9 s; writes with acks=all got no acknowledgement for 11.4 s"},
		{"cut from the brokers only", result.Fault{Status: "done", Partitions: led, UnavailableMs: ms(22100)},
			timeline.CutBrokers, []string{"all"},
			"leader cut from the other brokers, still in the quorum: not fenced, no election; writes with acks=all got no acknowledgement for 22.1 s (acks=all waits for followers that cannot fetch, and is refused once the ISR is below min.insync.replicas)"},
		{"cut from the quorum, never fenced", result.Fault{Status: "done", Partitions: led, UnavailableMs: ms(23497)},
			timeline.CutQuorum, []string{"1"},
			"leader cut from the other brokers and the controller quorum: not fenced while cut off, no election; writes with acks=1 got no acknowledgement for 23.5 s"},
		{"not a leader", result.Fault{Status: "done"}, timeline.CutQuorum, []string{"all"}, ""},
		{"not a cut", result.Fault{Status: "done", Partitions: led, ElectionMs: ms(9000)}, "", []string{"all"}, ""},
		{"failed", result.Fault{Status: "failed", Partitions: led}, timeline.CutQuorum, []string{"all"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := cutOutcome(tt.f, tt.cut, tt.acks); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
