package consume

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// A reader's processing time is kept on its own clock: a late wake-up is
// made up by the next records (so 1 ms records take 1 ms on average on a
// loaded machine), but idleness is not banked as credit beyond
// maxProcessingCredit.
func TestSpendKeepsProcessingOnItsOwnClock(t *testing.T) {
	tests := []struct {
		name    string
		late    time.Duration // a wake-up this late before the records
		records int
		want    time.Duration // the records' time on the wall clock
	}{
		{"on time", 0, 100, 100 * time.Millisecond},
		{"late wake-up made up", 3 * time.Millisecond, 10, 7 * time.Millisecond},
		{"idleness is no credit", time.Second, 10, 10 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				c := &Client{cr: &ConsumerRun{runCtx: ctx}}
				c.spend(time.Millisecond) // the clock starts
				time.Sleep(tt.late)       // after the first record: woken this late
				start := time.Now()
				for range tt.records {
					c.spend(time.Millisecond)
				}
				if got := time.Since(start); got != tt.want {
					t.Errorf("%d records of 1 ms took %s, want %s", tt.records, got, tt.want)
				}
			})
		})
	}
}
