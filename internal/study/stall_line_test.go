package study

import (
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// TestStallLine: regression: a plan's stall line named no workload ("kbench:
// no acknowledgement for 1.5s: 1 records outstanding"), so with several
// producers nobody could tell which one waited.
func TestStallLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    measure.Stall
		want string
	}{
		{measure.Stall{For: 1500 * time.Millisecond, Outstanding: 1}, "kbench: ramp: no acknowledgement for 1.5s: 1 record outstanding"},
		{measure.Stall{For: 6 * time.Second, Outstanding: 40, LastError: "connection refused"}, "kbench: ramp: no acknowledgement for 6s: 40 records outstanding; last error: connection refused"},
		// A share group's members waiting on a group without partitions
		// said nothing before.
		{measure.Stall{For: 9 * time.Second, Outstanding: 6000, Reader: true, Why: "no member has joined the share group yet", LastError: "connection refused"},
			"kbench: ramp: no record read for 9s: 6000 records unread; no member has joined the share group yet; last error: connection refused"},
	}
	for _, tt := range tests {
		if got := stallLine("ramp", tt.s); got != tt.want {
			t.Errorf("stallLine = %q, want %q", got, tt.want)
		}
	}
}
