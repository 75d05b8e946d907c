package produce

import (
	"fmt"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/workload/engine"
)

// TestSteadyWindowCountsSendIntervals guards the steady rate's fencepost
// (issue "every figure means what it says", item 1): with every record
// steady, the window ran from the first record's send to the last one's
// acknowledgement, n records over n-1 send intervals plus the last
// acknowledgement's latency: 1,000.3 records/s at 1,000 offered. The
// window now reaches the end of the last steady record's send interval.
func TestSteadyWindowCountsSendIntervals(t *testing.T) {
	t.Parallel()
	const rate, records = 1000.0, 1000
	for _, clients := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d clients", clients), func(t *testing.T) {
			t.Parallel()
			// A time warm-up the first acknowledgement comes after: every
			// record is steady, the first sent at the start.
			warm := newWarmup(0, 200*time.Millisecond)
			first, lastEnd, lastDue := time.Duration(-1), time.Duration(0), time.Duration(0)
			steady := 0
			for k := range clients {
				c := &producerClient{pacer: load.NewPacer(rate / float64(clients))}
				for i := int64(0); i < engine.EvenPart(records, clients, k); i++ {
					due := c.pacer.Due(i)
					if !warm.steady(250*time.Millisecond+due, due) {
						t.Fatalf("client %d record %d not steady", k, i)
					}
					steady++
					if first < 0 || due < first {
						first = due
					}
					lastDue = max(lastDue, due)
					lastEnd = max(lastEnd, c.sendIntervalEnd(i, due))
				}
			}
			// The last record acknowledged half a millisecond after its send.
			end := lastDue + 500*time.Microsecond
			at, ok := warm.at(end)
			if !ok {
				t.Fatal("steady state not begun")
			}
			from, to, _ := warm.steadyWindow(at, end, first, lastEnd)
			if got := float64(steady) / (to - from).Seconds(); got > rate {
				t.Errorf("steady state %.1f records/s (%d records over %v) at %.0f offered", got, steady, to-from, rate)
			}
		})
	}
}

// TestSendIntervalEnd: a record's send interval ends at its client's next
// intended send at a fixed rate; at an unlimited rate, for a virtual user
// and past the last stage it is the record's own send.
func TestSendIntervalEnd(t *testing.T) {
	t.Parallel()
	staged, err := load.NewStagedPacer([]load.Stage{{Duration: time.Second, Rate: 10}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    *producerClient
		i    int64
		due  time.Duration
		want time.Duration
	}{
		{"fixed rate", &producerClient{pacer: load.NewPacer(500)}, 3, 6 * time.Millisecond, 8 * time.Millisecond},
		// A record sent after a pause keeps its interval's length.
		{"shifted", &producerClient{pacer: load.NewPacer(500)}, 3, 106 * time.Millisecond, 108 * time.Millisecond},
		{"unlimited", &producerClient{pacer: load.NewPacer(0)}, 3, 6 * time.Millisecond, 6 * time.Millisecond},
		{"virtual user", &producerClient{pacer: load.NewPacer(500), closed: true}, 3, 6 * time.Millisecond, 6 * time.Millisecond},
		{"last of the stages", &producerClient{pacer: staged}, 4, 900 * time.Millisecond, 900 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.c.sendIntervalEnd(tt.i, tt.due); got != tt.want {
				t.Errorf("sendIntervalEnd(%d, %v) = %v, want %v", tt.i, tt.due, got, tt.want)
			}
		})
	}
}
