package live

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
)

// TestLivePlainRateOverItsWindow: regression: plain output (a CI log,
// every 10 s) showed the rate of the last 1 s interval only, so a dip in
// that second read as the whole stretch's rate. Its rate is now over
// everything since its previous lines, and it says over how long.
func TestLivePlainRateOverItsWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		v := newView(&out, false, 1, 1, PlainEvery)
		v.RepeatStarted(observe.RepeatInfo{Scenario: 1, Scenarios: 1, Repeat: 1, Repeats: 1, Started: time.Now(),
			Workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true}}})
		// Intervals end half-way between the view's ticks (every second):
		// an interval and a tick at one instant would run in either order.
		time.Sleep(time.Second / 2)
		for i := range 10 {
			if i > 0 {
				time.Sleep(time.Second)
			}
			n := int64(1000)
			if i == 9 {
				n = 100 // the last second before the line dips
			}
			v.ProducerInterval("writer", measure.Interval{Length: time.Second, WindowStats: measure.WindowStats{Count: n, Bytes: n}})
		}
		time.Sleep(time.Second) // the tick at 10 s prints the lines
		v.Close()
		if got := lastLine(out.String(), "writer"); !strings.Contains(got, "writer: 910 records/s, 0.000868 MB/s over the last 10s") {
			t.Fatalf("line %q: want the rate over the 10 s since the last lines\n%s", got, out.String())
		}
	})
}

// TestLiveLinesOfPhases: regression: a workload waiting for another's end
// showed zero figures ("waiting for the first acknowledgement (40s)"), one
// that had ended its last figures, and a ramp whose users went to 0 "no
// acknowledgements for 12s". Each now says what it is: waiting for what,
// done, idle; and a ramp coming back from idle is not said to have waited
// since before.
func TestLiveLinesOfPhases(t *testing.T) {
	t.Parallel()
	now := time.Now()
	idleFirst10s := func(t time.Duration) bool { return t < 10*time.Second }
	tests := []struct {
		name string
		w    workloadState
		at   time.Duration // after the start
		want string
	}{
		{"after a workload", workloadState{info: observe.WorkloadInfo{Name: "readers", Type: "consume", Reads: true, AfterWorkload: "writers"}}, 40 * time.Second,
			"readers: waiting (start_after writers), "},
		{"after a backlog", workloadState{info: observe.WorkloadInfo{Name: "readers", Type: "consume", Reads: true, Backlog: 5 << 20}}, 40 * time.Second,
			"readers: waiting (backlog: 5242880 bytes written first), "},
		{"done", workloadState{info: observe.WorkloadInfo{Name: "writers", Type: "produce", Sends: true}, begun: true, done: true, records: 3000}, 40 * time.Second,
			"writers: done, 3000 records, "},
		{"ramp at 0 users", workloadState{info: observe.WorkloadInfo{Name: "ramp", Type: "produce", Sends: true, Idle: idleFirst10s}}, 5 * time.Second,
			"ramp: idle (its load asks for no records now), "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.started, w.lastData = now, now.Add(w.info.StartAfter)
			if got := w.line(now.Add(tt.at), nil); !strings.HasPrefix(got, tt.want) {
				t.Fatalf("line %q, want it to start %q", got, tt.want)
			}
		})
	}
	// Out of the idle stretch, quiet counts from its end, not the start.
	w := workloadState{info: observe.WorkloadInfo{Name: "ramp", Type: "produce", Sends: true, Idle: idleFirst10s}, started: now, lastData: now}
	w.line(now.Add(9500*time.Millisecond), nil)
	if got := w.line(now.Add(10500*time.Millisecond), nil); !strings.HasPrefix(got, "ramp: 0 records/s") {
		t.Fatalf("a second after the idle stretch: %q, want no stall yet", got)
	}
}
