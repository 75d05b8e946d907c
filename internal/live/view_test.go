package live

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// feed plays one repeat of a producer (10,000 records asked, 2,000 per
// 100 ms interval) and a consumer with lag.
func feed(v *View) {
	ri := runner.RepeatInfo{Scenario: 1, Scenarios: 2, Name: "partitions=10", Repeat: 1, Repeats: 1, Started: time.Now(),
		Workloads: []runner.WorkloadInfo{{Name: "producers", Type: "produce", Records: 10_000}, {Name: "readers", Type: "consume"}}}
	v.RepeatStarted(ri)
	for i := range 4 {
		v.ProducerInterval("producers", workload.Interval{Length: 100 * time.Millisecond, WindowStats: measure.WindowStats{Count: 2000, Bytes: 2000 * 1024}, P99Us: 12_300, Failed: int64(i)})
		v.ConsumerInterval("readers", workload.ConsumerInterval{Start: time.Now().Add(-100 * time.Millisecond), End: time.Now(), Records: 1900, Bytes: 1900 * 1024, LatSumUs: 1900 * 5000, LatencyCount: 1900})
		v.ConsumerLag("readers", 100)
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPlainOutputHasNoEscapes: to a pipe or a file the view prints plain
// status lines, periodically, and never an escape code.
func TestPlainOutputHasNoEscapes(t *testing.T) {
	var out lockedBuffer
	v := New(&out, false, 2, 1)
	v.every = 10 * time.Millisecond
	feed(v)
	fmt := "line from the run\n"
	v.Write([]byte(fmt))
	v.RepeatEnded(runner.RepeatInfo{}, result.Repeat{})
	v.Close()
	got := out.String()
	if strings.ContainsRune(got, '\x1b') {
		t.Fatalf("plain output holds escape codes:\n%q", got)
	}
	for _, want := range []string{
		"kbench: scenario 1 of 2, repeat 1 of 1: producers: 20.0k records/s, 19.53 MB/s, p99 12.3 ms, ",
		"readers: 19.0k records/s, 18.55 MB/s, end-to-end 5.0 ms, 0 error(s), lag 100",
		"% of the plan done, about ",
		"line from the run",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// fixedTerminal is a 120×40 terminal writing to a buffer.
type fixedTerminal struct{ *cupwriter.Writer }

func (fixedTerminal) GetTermSize() (int, int, error) { return 120, 40, nil }
func (fixedTerminal) IsTerminal() bool               { return true }

// TestTerminalView: on a terminal the view draws a bar with the time left
// and a line per workload.
func TestTerminalView(t *testing.T) {
	var out lockedBuffer
	v := newView(&out, true, 2, 1, mpb.WithConsoleWriter(fixedTerminal{cupwriter.New(&out, true)}))
	feed(v)
	time.Sleep(400 * time.Millisecond) // a redraw
	v.Write([]byte("a line above the bars\n"))
	v.RepeatEnded(runner.RepeatInfo{}, result.Repeat{})
	v.Close()
	got := out.String()
	for _, want := range []string{"scenario 1/2 partitions=10, repeat 1/1", "producers: 20.0k records/s", "lag 100", "left", "a line above the bars"} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, got)
		}
	}
}

func TestFraction(t *testing.T) {
	v := &View{total: 4}
	v.ended = 1
	v.wl = []*workloadState{
		{info: runner.WorkloadInfo{Records: 1000}, records: 500},
		{info: runner.WorkloadInfo{Duration: time.Hour}, started: time.Now()}, // just started: the slowest
	}
	if f, known := v.fraction(); !known || f < 0.25 || f > 0.2501 {
		t.Errorf("fraction %v (known %v), want 0.25: one repeat of 4 done, the running one barely started", f, known)
	}
	v.wl = []*workloadState{{info: runner.WorkloadInfo{Name: "readers"}}} // idle timeout: no known end
	if _, known := v.fraction(); known {
		t.Error("a repeat with no record count or duration has no known end")
	}
}
