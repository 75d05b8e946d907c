package measure

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestFirstTick(t *testing.T) {
	t.Parallel()
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		epoch time.Time
		start time.Time
		want  time.Duration
	}{
		{"no epoch", time.Time{}, epoch.Add(123 * time.Millisecond), time.Second},
		{"on the epoch", epoch, epoch, time.Second},
		{"after the epoch", epoch, epoch.Add(2300 * time.Millisecond), 700 * time.Millisecond},
		{"epoch after start", epoch, epoch.Add(-300 * time.Millisecond), time.Second},
	}
	for _, tt := range tests {
		if got := FirstTick(tt.epoch, tt.start, time.Second); got != tt.want {
			t.Errorf("%s: FirstTick = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTickerAlignsOnEpoch checks on a fake clock that a series started
// between two boundaries ticks on the epoch's boundaries, and that a tick
// received late is followed by the next boundary, not a burst.
func TestTickerAlignsOnEpoch(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		time.Sleep(250 * time.Millisecond)
		start := time.Now()
		tk := NewTicker(epoch, start, time.Second)
		defer tk.Stop()
		var got []time.Duration
		for i := 0; i < 4; i++ {
			now := <-tk.C()
			got = append(got, now.Sub(epoch))
			if i == 1 {
				time.Sleep(1500 * time.Millisecond) // a reporter that did not run
				now = time.Now()
			}
			tk.Next(now)
		}
		want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ticks at %v since the epoch, want %v", got, want)
			}
		}
	})
}
