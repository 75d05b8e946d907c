package workload

import (
	"context"
	"testing"
	"time"
)

// TestRunProducerDurationSendsRateTimesDuration: regression: a timed run
// at a fixed rate sent one record more than rate × duration: the record
// due exactly at the end was sent in the pacer's last burst before the
// duration's timer fired (and each of several clients could add one). The
// records due before the end are sent, and only they.
func TestRunProducerDurationSendsRateTimesDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rate     float64
		duration time.Duration
		clients  int
		want     int64
	}{
		{"one client", 1000, time.Second, 1, 1000},
		{"three clients", 1000, time.Second, 3, 1000},
		{"a fraction", 333, 1500 * time.Millisecond, 2, 500}, // 499.5 due before the end, from record 0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec(t, fakeCluster(t, "t", 3), "t")
			spec.Rate, spec.Duration, spec.Clients = tt.rate, tt.duration, tt.clients
			res, err := RunProducer(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Acked != tt.want || res.Failed != 0 {
				t.Fatalf("acked %d, failed %d: want %d records (%g/s for %v)", res.Acked, res.Failed, tt.want, tt.rate, tt.duration)
			}
		})
	}
}
