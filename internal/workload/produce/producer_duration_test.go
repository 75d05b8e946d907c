package produce

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kbench/kbench/internal/load"
)

// TestRunProducerDurationSendsRateTimesDuration: regression: a timed run
// at a fixed rate sent one record more than rate × duration: the record
// due exactly at the end was sent in the pacer's last burst before the
// duration's timer fired (and each of several clients could add one). The
// records due before the end are sent, or counted not sent, and no more.
// How many the sender reaches before the end depends on the machine (a
// loaded one left 8 of 1,000 to NotSent: "acked 992"), so this run counts
// them together; TestScheduleSendsWhatIsDueBeforeTheEnd checks the exact
// arithmetic on a synctest clock.
func TestRunProducerDurationSendsRateTimesDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range durationCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec(t, fakeCluster(t, "t", 3), "t")
			spec.Rate, spec.Duration, spec.Clients = tt.rate, tt.duration, tt.clients
			res, err := RunProducer(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Acked+res.NotSent != tt.want || res.Acked == 0 || res.Failed != 0 {
				t.Fatalf("acked %d, not sent %d, failed %d: want %d records due (%g/s for %v)",
					res.Acked, res.NotSent, res.Failed, tt.want, tt.rate, tt.duration)
			}
		})
	}
}

var durationCases = []struct {
	name     string
	rate     float64
	duration time.Duration
	clients  int
	want     int64 // records due before the end
}{
	{"one client", 1000, time.Second, 1, 1000},
	{"three clients", 1000, time.Second, 3, 1000},
	{"a fraction", 333, 1500 * time.Millisecond, 2, 500}, // 499.5 due before the end, from record 0
}

// TestScheduleSendsWhatIsDueBeforeTheEnd runs the clients' schedules of a
// timed run (schedule, then send's loop: the duration's context, waitDue)
// on a synctest clock, where the sender is never late unless told: every
// record due before the end is sent, the one due at the end is not. A
// sender that stalls past the end (a loaded machine) leaves the rest unsent
// rather than run over the duration: the "acked 992" of a loaded CI run.
func TestScheduleSendsWhatIsDueBeforeTheEnd(t *testing.T) {
	t.Parallel()
	type stall struct {
		before int64         // client 0 stalls before sending this record
		late   time.Duration // for this long
	}
	tests := []struct {
		name     string
		rate     float64
		duration time.Duration
		clients  int
		stall    stall
		want     int64         // sent
		ended    time.Duration // when the last sender noticed the end; 0: at the end
	}{
		{"one client", 1000, time.Second, 1, stall{}, 1000, 0},
		{"three clients", 1000, time.Second, 3, stall{}, 1000, 0},
		{"a fraction", 333, 1500 * time.Millisecond, 2, stall{}, 500, 0},
		// Records 992 to 999 go late, in a burst, still before the end.
		{"a stall caught up before the end", 1000, time.Second, 1, stall{992, 7 * time.Millisecond}, 1000, 0},
		{"a stall mid-run", 1000, time.Second, 3, stall{100, 50 * time.Millisecond}, 1000, 0},
		// The sender stalls once it has sent record 991 (at 991 ms) and
		// comes back at 1,011 ms: records 992 to 999 are not sent.
		{"a stall past the end", 1000, time.Second, 1, stall{992, 20 * time.Millisecond}, 992, 1011 * time.Millisecond},
		// Client 0 sends one record every 3 ms; it stalls after its 329th
		// (at 987 ms): its 330th to 333rd are not sent.
		{"one client of three stalls past the end", 1000, time.Second, 3, stall{330, 20 * time.Millisecond}, 996, 1007 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				spec := ProducerSpec{Rate: tt.rate, Duration: tt.duration, Clients: tt.clients}
				start := time.Now()
				sendCtx, cancel := context.WithTimeout(t.Context(), tt.duration)
				defer cancel()
				sent := make([]int64, tt.clients)
				var wg sync.WaitGroup
				for i := range tt.clients {
					c := &producerClient{start: start}
					if err := c.schedule(spec, i); err != nil {
						t.Fatal(err)
					}
					wg.Go(func() {
						// send's loop, without the records.
						for n := int64(0); ; n++ {
							if i == 0 && n == tt.stall.before && tt.stall.late > 0 {
								time.Sleep(tt.stall.late)
							}
							if sendCtx.Err() != nil || !c.waitDue(sendCtx, n) {
								return
							}
							sent[i]++
						}
					})
				}
				wg.Wait()
				var total int64
				for _, n := range sent {
					total += n
				}
				if total != tt.want {
					t.Errorf("sent %d (%v per client), want %d", total, sent, tt.want)
				}
				if due := load.DueBefore(tt.rate, tt.duration); total > due {
					t.Errorf("sent %d: more than the %d due before the end", total, due)
				}
				ended := tt.duration
				if tt.ended > 0 {
					ended = tt.ended
				}
				if el := time.Since(start); el != ended {
					t.Errorf("sending ended %v after the start, want %v", el, ended)
				}
			})
		})
	}
}
