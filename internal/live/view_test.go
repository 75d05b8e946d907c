package live

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
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
	ri := observe.RepeatInfo{Scenario: 1, Scenarios: 2, Name: "partitions=10", Repeat: 1, Repeats: 1, Started: time.Now(),
		Workloads: []observe.WorkloadInfo{{Name: "producers", Type: "produce", Sends: true, Records: 10_000}, {Name: "readers", Type: "consume", Reads: true}}}
	v.RepeatStarted(ri)
	for i := range 4 {
		v.ProducerInterval("producers", measure.Interval{Length: 100 * time.Millisecond, WindowStats: measure.WindowStats{Count: 2000, Bytes: 2000 * 1024}, P99Us: 12_300, Failed: int64(i)})
		v.ConsumerInterval("readers", measure.ConsumerInterval{Start: time.Now().Add(-100 * time.Millisecond), End: time.Now(), Records: 1900, Bytes: 1900 * 1024, LatSumUs: 1900 * 5000, LatencyCount: 1900})
		v.ConsumerLag("readers", 100)
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPlainOutputHasNoEscapes: to a pipe or a file the view prints plain
// status lines, periodically, and never an escape code.
func TestPlainOutputHasNoEscapes(t *testing.T) {
	var out lockedBuffer
	v := newView(&out, false, 2, 1, 10*time.Millisecond)
	feed(v)
	fmt := "line from the run\n"
	v.Write([]byte(fmt))
	v.RepeatEnded(observe.RepeatInfo{}, result.Repeat{})
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
	v := newView(&out, true, 2, 1, PlainEvery, mpb.WithConsoleWriter(fixedTerminal{cupwriter.New(&out, true)}))
	feed(v)
	time.Sleep(400 * time.Millisecond) // a redraw
	v.Write([]byte("a line above the bars\n"))
	v.RepeatEnded(observe.RepeatInfo{}, result.Repeat{})
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
		{info: observe.WorkloadInfo{Records: 1000}, records: 500},
		{info: observe.WorkloadInfo{Duration: time.Hour}, started: time.Now()}, // just started: the slowest
	}
	if f, known := v.fraction(); !known || f < 0.25 || f > 0.2501 {
		t.Errorf("fraction %v (known %v), want 0.25: one repeat of 4 done, the running one barely started", f, known)
	}
	v.wl = []*workloadState{{info: observe.WorkloadInfo{Name: "readers"}}} // idle timeout: no known end
	if _, known := v.fraction(); known {
		t.Error("a repeat with no record count or duration has no known end")
	}
}

// lastLine returns the last plain status line of the named workload.
func lastLine(out, name string) string {
	last := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ": "+name+": ") {
			last = l
		}
	}
	return last
}

// TestLiveRateOfShortIntervals: regression: a final interval of 3 ms
// showed as 9,018 records/s (27 records) where the run went at about
// 1,238. A rate is never taken from less than 100 ms, nor from a partial
// interval shorter than half an interval (Folded): a short last interval
// is added to the one before, a short first one to the next.
func TestLiveRateOfShortIntervals(t *testing.T) {
	type iv struct {
		length  time.Duration
		records int64
		final   bool
		folded  bool
	}
	tests := []struct {
		name     string
		consumer bool
		ivs      []iv
		want     string
	}{
		{"final 3 ms", false, []iv{{time.Second, 1211, false, false}, {3 * time.Millisecond, 27, true, false}}, "writer: 1234 records/s"},
		{"final 3 ms, consumer", true, []iv{{time.Second, 1211, false, false}, {3 * time.Millisecond, 27, true, false}}, "reader: 1234 records/s"},
		{"final under half an interval", false, []iv{{time.Second, 1000, false, false}, {400 * time.Millisecond, 100, true, true}}, "writer: 786 records/s"},
		{"final of half an interval or more", false, []iv{{time.Second, 1000, false, false}, {600 * time.Millisecond, 300, true, false}}, "writer: 500 records/s"},
		{"first 3 ms alone", false, []iv{{3 * time.Millisecond, 2, false, true}}, "writer: 0 records/s"},
		{"first 3 ms, then a whole interval", false, []iv{{3 * time.Millisecond, 2, false, true}, {time.Second, 1000, false, false}}, "writer: 999 records/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out lockedBuffer
				v := newView(&out, false, 1, 1, time.Nanosecond) // a status line at every interval
				v.RepeatStarted(observe.RepeatInfo{Scenario: 1, Scenarios: 1, Repeat: 1, Repeats: 1, Started: time.Now(),
					Workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true}, {Name: "reader", Type: "consume", Reads: true}}})
				for _, x := range tt.ivs {
					time.Sleep(x.length)
					if tt.consumer {
						v.ConsumerInterval("reader", measure.ConsumerInterval{Start: time.Now().Add(-x.length), End: time.Now(),
							Records: x.records, Bytes: x.records * 100, Final: x.final, Folded: x.folded})
					} else {
						v.ProducerInterval("writer", measure.Interval{Length: x.length, Final: x.final, Folded: x.folded,
							WindowStats: measure.WindowStats{Count: x.records, Bytes: x.records * 100}})
					}
				}
				time.Sleep(time.Millisecond) // the status lines once more
				v.Close()
				name := "writer"
				if tt.consumer {
					name = "reader"
				}
				if got := lastLine(out.String(), name); !strings.Contains(got, tt.want) {
					t.Errorf("last line %q, want %q\n%s", got, tt.want, out.String())
				}
			})
		})
	}
}

// TestLiveQuietWorkloadSaysSo: regression: with the broker paused the view
// kept printing a producer's last p99 beside 0 records/s, and a consumer's
// last rate (or nothing at all: a consumer reports no empty interval).
// Once nothing completed for QuietAfter the line says for how long.
func TestLiveQuietWorkloadSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		v := newView(&out, false, 1, 1, time.Second)
		v.RepeatStarted(observe.RepeatInfo{Scenario: 1, Scenarios: 1, Repeat: 1, Repeats: 1, Started: time.Now(),
			Workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true}, {Name: "reader", Type: "consume", Reads: true}}})
		time.Sleep(3 * time.Second) // topics prepared, the group joining
		if w := lastLine(out.String(), "writer"); !strings.Contains(w, "writer: waiting for the first acknowledgement (") {
			t.Errorf("before any record: %q, want that it waits for the first", w)
		}
		for range 3 {
			time.Sleep(time.Second)
			v.ProducerInterval("writer", measure.Interval{Length: time.Second, P99Us: 12_300, WindowStats: measure.WindowStats{Count: 1000, Bytes: 1000}})
			v.ConsumerInterval("reader", measure.ConsumerInterval{Start: time.Now().Add(-time.Second), End: time.Now(), Records: 1000, Bytes: 1000})
		}
		// The broker pauses: the producer's intervals are empty, the
		// consumer's are not reported at all.
		for range 12 {
			time.Sleep(time.Second)
			v.ProducerInterval("writer", measure.Interval{Length: time.Second})
		}
		time.Sleep(time.Second) // the plain output's next status lines
		v.Close()
		got := out.String()
		if w := lastLine(got, "writer"); !strings.Contains(w, "writer: no acknowledgements for 1") || strings.Contains(w, "p99") {
			t.Errorf("producer's last line %q: want how long no acknowledgement came, without the old p99\n%s", w, got)
		}
		if r := lastLine(got, "reader"); !strings.Contains(r, "reader: no records for 1") || strings.Contains(r, "records/s") {
			t.Errorf("consumer's last line %q: want how long no record came, without the old rate\n%s", r, got)
		}
	})
}

// TestLiveETAFromRecordsDone: regression: the time left jumped from
// 1 h 47 m to 4 m 40 s between two lines, as it divided the time since
// the view started (a local cluster starting, a group joining) by the
// share done. It now follows the records done since the first ones.
func TestLiveETAFromRecordsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		v := New(&out, false, 1, 2)
		time.Sleep(time.Minute) // the plan's local cluster starts
		v.RepeatStarted(observe.RepeatInfo{Scenario: 1, Scenarios: 1, Repeat: 1, Repeats: 2, Started: time.Now(),
			Workloads: []observe.WorkloadInfo{{Name: "writer", Type: "produce", Sends: true, Records: 100_000}}})
		time.Sleep(3 * time.Second) // consumers join their group: no record yet
		for k := 1; k <= 9; k++ {
			time.Sleep(time.Second)
			v.ProducerInterval("writer", measure.Interval{Length: time.Second, WindowStats: measure.WindowStats{Count: 10_000, Bytes: 10_000}})
			// The truth: 10-k s of this repeat, then another of 13 s.
			want := time.Duration(10-k+13) * time.Second
			eta := v.eta()
			m := regexp.MustCompile(`about (\S+) left`).FindStringSubmatch(eta)
			if m == nil {
				t.Fatalf("after %d s of records: %q, want the time left", k, eta)
			}
			left, err := time.ParseDuration(m[1])
			if err != nil {
				t.Fatal(err)
			}
			if left < want*7/10 || left > want*14/10 {
				t.Errorf("after %d s of records: about %s left, want about %s", k, left, want)
			}
		}
		v.Close()
	})
}
