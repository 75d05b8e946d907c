package live

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
)

// TestLiveETAFromThePlan guards issue 33 item 10: the view said "about
// 9 s left" before a repeat of 28 s: a phase that had not started (start
// after the writers) was left out of the estimate. The estimate follows
// the plan, each workload's records or duration at its measured pace,
// phases one after the other, and says when it cannot know, and why.
func TestLiveETAFromThePlan(t *testing.T) {
	tests := []struct {
		name      string
		workloads []observe.WorkloadInfo
		want      time.Duration // 0: unknown
		wantWhy   string
	}{
		{name: "a phase after the writers",
			workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true, Duration: 10 * time.Second},
				{Name: "probe", Type: "produce", Sends: true, Duration: 18 * time.Second, AfterWorkload: "writer"}},
			want: 27 * time.Second},
		{name: "records at the measured pace, then a timed phase",
			workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true, Records: 100_000},
				{Name: "probe", Type: "produce", Sends: true, Duration: 5 * time.Second, AfterWorkload: "writer"}},
			want: 14 * time.Second},
		{name: "a phase of records not started: no pace yet",
			workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true, Duration: 10 * time.Second},
				{Name: "reader", Type: "consume", Reads: true, Records: 5000, AfterWorkload: "writer"}},
			wantWhy: "reader: not started: 5000 records at a pace not measured yet"},
		{name: "a backlog to wait for",
			workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true, Duration: 10 * time.Second},
				{Name: "catch-up", Type: "consume", Reads: true, Duration: 5 * time.Second, Backlog: 1 << 20}},
			wantWhy: "catch-up: waits for a backlog to be written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out lockedBuffer
				v := New(&out, false, 1, 1)
				defer v.Close()
				v.RepeatStarted(observe.RepeatInfo{Scenario: 1, Scenarios: 1, Repeat: 1, Repeats: 1, Started: time.Now(), Workloads: tt.workloads})
				time.Sleep(time.Second)
				v.ProducerInterval("writer", measure.Interval{Length: time.Second, WindowStats: measure.WindowStats{Count: 10_000, Bytes: 10_000}})
				eta := v.eta()
				if tt.want == 0 {
					if !strings.Contains(eta, "time left unknown ("+tt.wantWhy+")") {
						t.Fatalf("%q, want the time left unknown, saying %q", eta, tt.wantWhy)
					}
					return
				}
				m := regexp.MustCompile(`about (\S+) left`).FindStringSubmatch(eta)
				if m == nil {
					t.Fatalf("%q, want the time left", eta)
				}
				left, err := time.ParseDuration(m[1])
				if err != nil {
					t.Fatal(err)
				}
				if left < tt.want-time.Second || left > tt.want+time.Second {
					t.Errorf("about %s left, want %s", left, tt.want)
				}
			})
		})
	}
}
