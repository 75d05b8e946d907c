package load

import (
	"math"
	"testing"
	"time"
)

func TestStagedPacerDue(t *testing.T) {
	t.Parallel()
	p, err := NewStagedPacer([]Stage{
		{10 * time.Second, 1000}, // 0 → 1000/s: 5000 records
		{10 * time.Second, 1000}, // hold: 10000 records
		{5 * time.Second, 0},     // 1000 → 0: 2500 records
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		i    int64
		want time.Duration
	}{
		{0, 0},
		{1250, 5 * time.Second}, // 1000·t²/20 = 1250 → t = 5 s
		{5000, 10 * time.Second},
		{6000, 11 * time.Second},
		{15000, 20 * time.Second},
		{15000 + 1875, 22500 * time.Millisecond}, // half-way down: 1000·2.5 − 100·2.5² = 1875
	}
	for _, tt := range tests {
		got := p.Due(tt.i)
		if d := got - tt.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("Due(%d) = %v, want %v", tt.i, got, tt.want)
		}
	}
	if got := p.Due(17500); got != time.Duration(math.MaxInt64) {
		t.Errorf("Due past the last stage = %v, want never", got)
	}
	if p.Unlimited() {
		t.Error("a staged pacer is not unlimited")
	}
	for _, bad := range [][]Stage{{{0, 10}}, {{time.Second, -1}}} {
		if _, err := NewStagedPacer(bad); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}

func TestRateAt(t *testing.T) {
	t.Parallel()
	stages := []Stage{{Duration: 10 * time.Second, Rate: 100}, {Duration: 10 * time.Second, Rate: 100}, {Duration: 5 * time.Second, Rate: 0}}
	tests := []struct {
		at   time.Duration
		want float64
	}{
		{0, 0}, {5 * time.Second, 50}, {15 * time.Second, 100}, {22500 * time.Millisecond, 50}, {25 * time.Second, 0}, {time.Minute, 0},
	}
	for _, tt := range tests {
		if got := RateAt(stages, tt.at); got != tt.want {
			t.Errorf("RateAt(%v) = %v, want %v", tt.at, got, tt.want)
		}
	}
}
