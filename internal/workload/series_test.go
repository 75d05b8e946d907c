package workload

import (
	"math"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// TestSeriesBoundedOver24Hours: a day of one-second intervals stays within
// MaxSeries entries, keeps every record, byte and second, the largest
// latency, and the last interval's marks.
func TestSeriesBoundedOver24Hours(t *testing.T) {
	const seconds = 24 * 60 * 60
	var ivs []Interval
	var cons []ConsumerInterval
	var lag []LagSample
	start := time.Unix(0, 0)
	for i := 1; i <= seconds; i++ {
		lat := int64(1000)
		if i == 40_000 {
			lat = 9_000_000 // one slow record in the middle of the day
		}
		iv := Interval{Elapsed: time.Duration(i) * time.Second, Length: time.Second,
			WindowStats: measure.WindowStats{Count: 100, Bytes: 10_000, LatSumUs: 100 * lat, LatMaxUs: lat, LatCount: 100},
			P50Us:       lat, P99Us: lat, P999Us: lat, Steady: i > 60, Final: i == seconds}
		ivs = appendBounded(ivs, iv, mergeIntervals)
		ci := ConsumerInterval{Start: start.Add(time.Duration(i-1) * time.Second), End: start.Add(time.Duration(i) * time.Second),
			Records: 100, Bytes: 10_000, TotalRecords: int64(i) * 100, LatMaxUs: lat, LatSumUs: 100 * lat, LatencyCount: 100}
		cons = appendBounded(cons, ci, mergeConsumerIntervals)
		lag = appendBounded(lag, LagSample{Elapsed: time.Duration(i) * time.Second, Records: int64(i % 1000)}, mergeLag)
		if len(ivs) >= MaxSeries || len(cons) >= MaxSeries || len(lag) >= MaxSeries {
			t.Fatalf("after %d s: %d, %d, %d entries; bound %d", i, len(ivs), len(cons), len(lag), MaxSeries)
		}
	}
	var count, bytes int64
	var length time.Duration
	var maxLat int64
	for _, iv := range ivs {
		count += iv.Count
		bytes += iv.Bytes
		length += iv.Length
		maxLat = max(maxLat, iv.LatMaxUs, iv.P999Us)
	}
	if count != seconds*100 || bytes != seconds*10_000 || length != seconds*time.Second || maxLat != 9_000_000 {
		t.Errorf("kept %d records, %d bytes, %s, max latency %d µs; want %d, %d, 24h, 9000000", count, bytes, length, maxLat, seconds*100, seconds*10_000)
	}
	if last := ivs[len(ivs)-1]; !last.Final || last.Elapsed != seconds*time.Second {
		t.Errorf("last interval %+v: want the final one, ending at 24h", last)
	}
	if first := cons[0]; !first.Start.Equal(start) || cons[len(cons)-1].TotalRecords != seconds*100 {
		t.Errorf("consumer series from %s to %d records", first.Start, cons[len(cons)-1].TotalRecords)
	}
	var peak int64
	for _, l := range lag {
		peak = max(peak, l.Records)
	}
	if peak != 999 {
		t.Errorf("lag peak %d after merging, want 999", peak)
	}
	t.Logf("24 h of 1 s intervals kept as %d producer, %d consumer intervals and %d lag samples", len(ivs), len(cons), len(lag))
}

// TestSeriesFoldsShortPartialIntervals: regression: a last interval of
// 3 ms holding 27 records was kept as its own interval, and the report
// chart drew it at 9,000 records/s where the run went at about 1,238. A
// partial interval (the first or the last) shorter than half an interval
// is folded into its neighbour, its records kept; one of half an interval
// or more keeps its own rate over its real length.
func TestSeriesFoldsShortPartialIntervals(t *testing.T) {
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
			// The producer's series.
			pc := &producerClient{}
			rep := newReporter(ProducerSpec{Interval: time.Second}, []*producerClient{pc}, t0)
			// The consumer's.
			cc := &consumerClient{}
			cr := &ConsumerRun{spec: ConsumerSpec{Interval: time.Second}, start: t0, clients: []*consumerClient{cc}}
			crep := newConsumerReporter(cr)
			var total int64
			for _, k := range tt.ticks {
				pc.window.AddStats(measure.WindowStats{Count: k.records, LatCount: k.records})
				rep.tick(t0.Add(k.at), k.final)
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
			var ps, cs []kept
			for _, iv := range rep.intervals {
				ps = append(ps, kept{iv.Count, iv.Length.Seconds(), float64(iv.Count) / iv.Length.Seconds()})
			}
			for _, iv := range crep.intervals {
				secs := iv.End.Sub(iv.Start).Seconds()
				cs = append(cs, kept{iv.Records, secs, float64(iv.Records) / secs})
			}
			for who, ivs := range map[string][]kept{"producer": ps, "consumer": cs} {
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
