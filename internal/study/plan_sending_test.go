package study

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSendEnd: sending ends when every producer has stamped its last
// record or run its duration, whichever comes first; a producer with
// neither leaves the end to the run.
func TestSendEnd(t *testing.T) {
	tests := []struct {
		name  string
		specs []produce.ProducerSpec
		// stamps are each producer's clients' sequence numbers stamped
		// before the end must still be open; last are the stamps that end it.
		before, last [][2]int64 // {producer*10 + client, seq}
		wait         time.Duration
		known        bool
	}{
		{"records split over clients", []produce.ProducerSpec{{Records: 10, Clients: 3}},
			[][2]int64{{0, 0}, {0, 2}, {1, 2}, {2, 2}}, [][2]int64{{0, 3}}, 0, true},
		{"a client with no records", []produce.ProducerSpec{{Records: 2, Clients: 3}},
			[][2]int64{{0, 0}}, [][2]int64{{1, 0}}, 0, true},
		{"duration first", []produce.ProducerSpec{{Records: 1000, Duration: 5 * time.Second}},
			[][2]int64{{0, 10}}, nil, 5 * time.Second, true},
		{"every producer", []produce.ProducerSpec{{Records: 1}, {Duration: 5 * time.Second}},
			[][2]int64{{0, 0}}, nil, 5 * time.Second, true},
		{"no end of its own", []produce.ProducerSpec{{Records: 1}, {}}, nil, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newSendEnd()
				trackers := map[int64]produce.RecordTracker{}
				for p, spec := range tt.specs {
					spec = s.add(spec)
					if spec.Tracker != nil {
						for c := range max(spec.Clients, 1) {
							trackers[int64(p*10+c)] = spec.Tracker(c)
						}
					}
				}
				if s.known() != tt.known {
					t.Fatalf("known %v, want %v", s.known(), tt.known)
				}
				s.begin()
				defer s.stop()
				stamp := func(ss [][2]int64) {
					for _, st := range ss {
						trackers[st[0]].Stamp(&kgo.Record{}, st[1])
					}
				}
				stamp(tt.before)
				if tt.wait > 0 {
					time.Sleep(tt.wait - time.Millisecond)
				}
				synctest.Wait()
				select {
				case <-s.ended:
					t.Fatal("ended too early")
				default:
				}
				stamp(tt.last)
				time.Sleep(time.Millisecond)
				synctest.Wait()
				select {
				case <-s.ended:
					if !tt.known {
						t.Fatal("ended although a producer has no end of its own")
					}
				default:
					if tt.known {
						t.Fatal("not ended after the last record and every duration")
					}
				}
			})
		})
	}
}
