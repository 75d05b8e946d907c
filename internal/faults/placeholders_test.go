package faults

import (
	"slices"
	"testing"
	"time"
)

// TestPlaceholdersCoverNetValues: every value a network command is given
// is a placeholder the plan check knows.
func TestPlaceholdersCoverNetValues(t *testing.T) {
	v := netValues(Params{"latency": 20 * time.Millisecond, "jitter": time.Millisecond, "share": 0.05, "retransmit": time.Second, "rate": "5KB/s"})
	known := Placeholders(Kinds(), Delay)
	for k := range v {
		if !slices.Contains(known, k) {
			t.Errorf("{%s} is filled but not in Placeholders %v", k, known)
		}
	}
	if got := Placeholders(Kinds(), Kill); !slices.Equal(got, []string{"broker"}) {
		t.Errorf("kill's placeholders %v", got)
	}
}
