package engine

import (
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// TestSeriesBoundedOver24Hours: a day of one-second intervals stays within
// MaxSeries entries, keeps every record, byte and second, the largest
// latency, and the last interval's marks.
func TestSeriesBoundedOver24Hours(t *testing.T) {
	const seconds = 24 * 60 * 60
	var ivs []measure.Interval
	var cons []measure.ConsumerInterval
	var lag []measure.LagSample
	start := time.Unix(0, 0)
	for i := 1; i <= seconds; i++ {
		lat := int64(1000)
		if i == 40_000 {
			lat = 9_000_000 // one slow record in the middle of the day
		}
		iv := measure.Interval{Elapsed: time.Duration(i) * time.Second, Length: time.Second,
			WindowStats: measure.WindowStats{Count: 100, Bytes: 10_000, LatSumUs: 100 * lat, LatMaxUs: lat, LatCount: 100},
			P50Us:       lat, P99Us: lat, P999Us: lat, Steady: i > 60, Final: i == seconds}
		ivs = AppendBounded(ivs, iv, MergeIntervals)
		ci := measure.ConsumerInterval{Start: start.Add(time.Duration(i-1) * time.Second), End: start.Add(time.Duration(i) * time.Second),
			Records: 100, Bytes: 10_000, TotalRecords: int64(i) * 100, LatMaxUs: lat, LatSumUs: 100 * lat, LatencyCount: 100}
		cons = AppendBounded(cons, ci, MergeConsumerIntervals)
		lag = AppendBounded(lag, measure.LagSample{Elapsed: time.Duration(i) * time.Second, Records: int64(i % 1000)}, MergeLag)
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
