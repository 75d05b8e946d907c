package consume

import (
	"math"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// TestConsumerReporterFoldsShortPartialIntervals: regression: a last interval of
// 3 ms holding 27 records was kept as its own interval, and the report
// chart drew it at 9,000 records/s where the run went at about 1,238. A
// partial interval (the first or the last) shorter than half an interval
// is folded into its neighbour, its records kept; one of half an interval
// or more keeps its own rate over its real length.
func TestConsumerReporterFoldsShortPartialIntervals(t *testing.T) {
	type tick struct {
		at      time.Duration // since the start
		records int64
		final   bool
	}
	tests := []struct {
		name    string
		ticks   []tick
		seconds []float64 // each interval's length in the result
		rates   []float64 // and its records/s
	}{
		{"last 3 ms", []tick{{time.Second, 1238, false}, {2 * time.Second, 1211, false}, {2003 * time.Millisecond, 27, true}},
			[]float64{1, 1.003}, []float64{1238, 1238 / 1.003}},
		{"last of 0.6 interval", []tick{{time.Second, 1000, false}, {1600 * time.Millisecond, 600, true}},
			[]float64{1, 0.6}, []float64{1000, 1000}},
		{"last of 0.4 interval", []tick{{time.Second, 1000, false}, {1400 * time.Millisecond, 400, true}},
			[]float64{1.4}, []float64{1000}},
		{"first 3 ms", []tick{{3 * time.Millisecond, 3, false}, {1003 * time.Millisecond, 1000, false}, {2003 * time.Millisecond, 1000, true}},
			[]float64{1.003, 1}, []float64{1003 / 1.003, 1000}},
		{"run shorter than half an interval", []tick{{300 * time.Millisecond, 300, true}},
			[]float64{0.3}, []float64{1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			cc := &Client{}
			cr := &ConsumerRun{spec: ConsumerSpec{Interval: time.Second}, start: t0, clients: []*Client{cc}}
			crep := newConsumerReporter(cr)
			var total int64
			for _, k := range tt.ticks {
				cc.window.AddStats(measure.WindowStats{Count: k.records})
				crep.tick(t0.Add(k.at), k.final)
				total += k.records
			}
			// Each interval as the result holds it: its records over its
			// own length.
			type kept struct {
				Records                int64
				Seconds, RecordsPerSec float64
			}
			var cs []kept
			for _, iv := range crep.intervals {
				secs := iv.End.Sub(iv.Start).Seconds()
				cs = append(cs, kept{iv.Records, secs, float64(iv.Records) / secs})
			}
			for who, ivs := range map[string][]kept{"consumer": cs} {
				var sum int64
				for _, iv := range ivs {
					sum += iv.Records
				}
				if sum != total {
					t.Errorf("%s: the intervals hold %d records, the run %d", who, sum, total)
				}
				if len(ivs) != len(tt.seconds) {
					t.Errorf("%s: %d intervals, want %d: %+v", who, len(ivs), len(tt.seconds), ivs)
					continue
				}
				for i, iv := range ivs {
					if math.Abs(iv.Seconds-tt.seconds[i]) > 1e-9 || math.Abs(iv.RecordsPerSec-tt.rates[i]) > 0.01 {
						t.Errorf("%s: interval %d: %.3f s at %.1f records/s, want %.3f s at %.1f", who, i, iv.Seconds, iv.RecordsPerSec, tt.seconds[i], tt.rates[i])
					}
				}
			}
		})
	}
}
