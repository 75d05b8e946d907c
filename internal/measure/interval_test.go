package measure

import (
	"sync"
	"testing"
)

func TestIntervalHistogramTakeResets(t *testing.T) {
	ih := NewIntervalHistogram()
	var lats []int64
	for v := int64(1); v <= 1000; v++ {
		lats = append(lats, v*1000) // 1 ms .. 1000 ms
	}
	ih.RecordAll(lats)
	got := ih.Take(50, 99, 99.9)
	want := []int64{500_000, 990_000, 999_000}
	for i := range want {
		if d := float64(got[i]-want[i]) / float64(want[i]); d < -0.01 || d > 0.01 {
			t.Errorf("percentile %d: got %d µs, want %d within 1%%", i, got[i], want[i])
		}
	}
	if again := ih.Take(50); again[0] != 0 {
		t.Errorf("after Take the interval is empty, got p50 %d", again[0])
	}
}

func TestIntervalHistogramConcurrentWriters(t *testing.T) {
	ih := NewIntervalHistogram()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]int64, 64)
			for i := range batch {
				batch[i] = 2000
			}
			for range 100 {
				ih.RecordAll(batch)
			}
		}()
	}
	wg.Wait()
	ih.mu.Lock()
	n := ih.h.TotalCount()
	ih.mu.Unlock()
	if n != 4*100*64 {
		t.Fatalf("recorded %d values, want %d", n, 4*100*64)
	}
	if p := ih.Take(99)[0]; p < 1980 || p > 2020 {
		t.Errorf("p99 %d µs, want 2000", p)
	}
}

func TestIntervalHistogramOutOfRange(t *testing.T) {
	ih := NewIntervalHistogram()
	ih.RecordAll([]int64{-5, 0, MaxLatencyMicros * 2})
	got := ih.Take(100)
	if got[0] < MaxLatencyMicros*99/100 {
		t.Errorf("over-range value should count as the maximum, got %d", got[0])
	}
}

func TestIntervalHistogramBuckets(t *testing.T) {
	ih := NewIntervalHistogram()
	ih.RecordAll([]int64{100, 900, 1000, 5000, 20_000, 2_000_000})
	bounds := []int64{1000, 10_000, 100_000}
	q, counts := ih.TakeBuckets(bounds, 50)
	want := []int64{3, 1, 1, 1} // ≤1 ms, ≤10 ms, ≤100 ms, above
	for i := range want {
		if counts[i] != want[i] {
			t.Fatalf("bucket counts %v, want %v", counts, want)
		}
	}
	if q[0] < 990 || q[0] > 1010 {
		t.Errorf("p50 %d µs, want 1000", q[0])
	}
}
