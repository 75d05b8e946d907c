package live

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
)

// TestRateSearchProgress: during a rate search the view says which run
// goes (its step, rate, probe i of n) and how many may follow within the
// time bound, never "100% of the plan done, about 0s left" (regression:
// five minutes of it while probes ran), and each run's "done" line counts
// that run's records, not every run's so far.
func TestRateSearchProgress(t *testing.T) {
	var out lockedBuffer
	v := newView(&out, false, 1, 1, 5*time.Millisecond)
	v.RepeatStarted(observe.RepeatInfo{Scenario: 1, Scenarios: 1, Name: "max-rate", Repeat: 1, Repeats: 1, Started: time.Now(),
		Workloads: []observe.WorkloadInfo{{Name: "p", Type: "produce", Sends: true, Duration: 10 * time.Millisecond}}})
	deadline := time.Now().Add(52 * time.Minute)
	for k, records := range []int64{3000, 1000} {
		v.ProbeStarted(observe.ProbeInfo{Workload: "p", Step: "search", Rate: 4000, Probe: k + 1, Probes: 3, Duration: 10 * time.Millisecond, MoreAtMost: 40 - k, Deadline: deadline})
		v.ProducerInterval("p", measure.Interval{Length: 100 * time.Millisecond, WindowStats: measure.WindowStats{Count: records, Bytes: records * 1024}, P99Us: 5000})
		v.WorkloadEnded("p")
		time.Sleep(50 * time.Millisecond) // past its duration: a plan's fraction would say 100%
		v.mu.Lock()
		v.plain()
		v.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	v.RepeatEnded(observe.RepeatInfo{}, result.Repeat{})
	v.Close()
	got := out.String()
	for _, want := range []string{
		"kbench: scenario 1 of 1, repeat 1 of 1: p: done, 3000 records",
		"kbench: scenario 1 of 1, repeat 1 of 1: p: done, 1000 records",
		"kbench: scenario 1 of 1, repeat 1 of 1: rate search: search probe 1 of 3 at 4000 records/s; at most 40 more run(s), the search ends within 52m",
		"rate search: search probe 2 of 3 at 4000 records/s; at most 39 more run(s)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"of the plan done", "done, 4000 records"} {
		if strings.Contains(got, bad) {
			t.Errorf("output holds %q:\n%s", bad, got)
		}
	}
}
