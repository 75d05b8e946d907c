package load

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestPacerDue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rate float64
		i    int64
		want time.Duration
	}{
		{1000, 0, 0},
		{1000, 1, time.Millisecond},
		{1000, 1500, 1500 * time.Millisecond},
		{0.5, 3, 6 * time.Second},
		{25000, 25000, time.Second},
		{-1, 1e6, 0},
		{0, 5, 0},
	}
	for _, tt := range tests {
		if got := NewPacer(tt.rate).Due(tt.i); got != tt.want {
			t.Errorf("rate %v: Due(%d) = %v, want %v", tt.rate, tt.i, got, tt.want)
		}
	}
	if !NewPacer(-1).Unlimited() || NewPacer(10).Unlimited() {
		t.Error("Unlimited wrong")
	}
}

func TestPacerWaitSleepsUntilDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPacer(100) // one record every 10ms
		start := time.Now()
		for i := int64(0); i < 100; i++ {
			if err := p.Wait(context.Background(), i, time.Since(start)); err != nil {
				t.Fatal(err)
			}
		}
		// Record 99 is due at 990ms; the fake clock moves only by sleeping.
		if got := time.Since(start); got != 990*time.Millisecond {
			t.Fatalf("100 records at 100/s took %v, want 990ms", got)
		}
	})
}

func TestPacerWaitRunsAheadInBursts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPacer(1e6) // 1µs apart: below minSleep, so no sleep per record
		start := time.Now()
		for i := int64(0); i < 999; i++ {
			if err := p.Wait(context.Background(), i, time.Since(start)); err != nil {
				t.Fatal(err)
			}
		}
		if got := time.Since(start); got != 0 {
			t.Fatalf("records due within 1ms waited %v", got)
		}
		if err := p.Wait(context.Background(), 5000, time.Since(start)); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 5*time.Millisecond {
			t.Fatalf("record 5000 at 1M/s: waited until %v, want 5ms", got)
		}
	})
}

func TestPacerWaitCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := NewPacer(0.001).Wait(ctx, 1, 0) // due in 1000s
		if err != context.DeadlineExceeded {
			t.Fatalf("err = %v, want deadline exceeded", err)
		}
	})
}

func TestPacerLateRecordsDoNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		// A producer stalled for 2s is behind every record due before then:
		// it sends them at once, and their intended times stay in the past.
		if err := NewPacer(10).Wait(context.Background(), 5, 2*time.Second); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) != 0 {
			t.Fatal("late record waited")
		}
	})
}

func TestDueBefore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rate float64
		d    time.Duration
		want int64
	}{
		{1000, time.Second, 1000},
		{1000, time.Second + time.Nanosecond, 1001},
		{3, time.Second, 3},
		{333, 1500 * time.Millisecond, 500},
		{0.5, 10 * time.Second, 5},
		{0, time.Second, 0},
		{100, 0, 0},
	}
	for _, tt := range tests {
		if got := DueBefore(tt.rate, tt.d); got != tt.want {
			t.Errorf("DueBefore(%g, %v) = %d, want %d", tt.rate, tt.d, got, tt.want)
		}
	}
}
