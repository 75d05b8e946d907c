package produce

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPromiseGateWakesOnTheLastPromise: waitPromises waits on an event,
// not a poll: the last promise closes the channel whether sending ended
// before any promise ran, in the middle, or after all of them (the lost
// wake-up to guard against: a promise counting the last record while
// sending records its total).
func TestPromiseGateWakesOnTheLastPromise(t *testing.T) {
	t.Parallel()
	const records = 1000
	tests := []struct {
		name   string
		sentAt int // sending ends once this many promises have been started
	}{
		{"before the first promise", 0},
		{"mid-way", records / 2},
		{"at the last promise", records - 1},
		{"after every promise", records},
		{"no records", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 200 { // the interleavings differ from round to round
				c := &producerClient{}
				n := int64(records)
				if tt.sentAt < 0 {
					n = 0
				}
				started := make(chan struct{}, records)
				go func() { // the promise worker: one promise at a time
					for range n {
						started <- struct{}{}
						if !c.gate.enter() {
							t.Error("a promise was shut out of a client nobody abandoned")
						}
						c.gate.leave(true)
					}
				}()
				for range max(tt.sentAt, 0) {
					<-started
				}
				c.gate.sent(n)
				if !c.waitPromises(time.Now().Add(time.Minute)) { // a hang guard, not a measurement
					t.Fatalf("waitPromises gave up with %d of %d promises completed", c.gate.completed(), n)
				}
				if got := c.gate.completed(); got != n {
					t.Fatalf("woken with %d of %d promises completed", got, n)
				}
			}
		})
	}
}

// TestPromiseGateAbandon: a promise that enters after abandon is shut
// out, yet counted as completed; a promise inside makes abandon wait.
func TestPromiseGateAbandon(t *testing.T) {
	t.Parallel()
	var g promiseGate
	if !g.enter() {
		t.Fatal("first promise shut out")
	}
	abandoned := make(chan struct{})
	go func() { g.abandon(); close(abandoned) }()
	select {
	case <-abandoned:
		t.Fatal("abandon returned while a promise was inside")
	case <-time.After(20 * time.Millisecond): // any wait shows it; a slower machine only waits longer
	}
	g.leave(true)
	<-abandoned
	if !g.abandoned() {
		t.Fatal("not abandoned after abandon")
	}
	if g.enter() {
		t.Fatal("a promise entered an abandoned client")
	}
	g.leave(false)
	if got := g.completed(); got != 2 {
		t.Fatalf("completed %d promises, want 2", got)
	}
}

// blockingTracker holds the promise of record 0 inside the promise worker
// (the tracker is called past the gate) until release is closed.
type blockingTracker struct {
	inside, returned, release chan struct{}
}

func (b *blockingTracker) Stamp(*kgo.Record, int64) {}

func (b *blockingTracker) Done(_ *kgo.Record, seq int64, _ error) {
	if seq != 0 {
		return
	}
	close(b.inside)
	<-b.release
	close(b.returned)
}

// TestRunProducerAbandonWaitsForAPromiseInside: regression: abandon set a
// flag and slept 20 ms, assuming any promise past the flag would be done
// by then; a promise still inside (preempted on a loaded machine) wrote
// the client's counts and histogram while collect read them (a data race,
// and counts off by the records it added). The run is aborted while
// record 0's promise is held inside; RunProducer must not return before
// that promise has, it counts that record, and every later promise
// (franz-go runs them in order, after it) counts nothing: those records
// are unresolved. Run it under -race.
func TestRunProducerAbandonWaitsForAPromiseInside(t *testing.T) {
	t.Parallel()
	const records = 200
	spec := testSpec(t, fakeCluster(t, "t", 1), "t")
	spec.Records = records
	tr := &blockingTracker{inside: make(chan struct{}), returned: make(chan struct{}), release: make(chan struct{})}
	spec.Tracker = func(int) RecordTracker { return tr }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abort, abortNow := context.WithCancel(context.Background())
	defer abortNow()
	spec.Abort = abort
	go func() {
		<-tr.inside
		cancel() // Ctrl-C, then a second one: the run stops waiting at once
		abortNow()
		// The run abandons the client within milliseconds of the abort;
		// the promise stays inside well past that. Were the machine so
		// slow that it left first, the test would only prove less.
		time.Sleep(300 * time.Millisecond)
		close(tr.release)
	}()
	res, _ := RunProducer(ctx, spec)
	select {
	case <-tr.returned:
	default:
		t.Fatal("RunProducer returned while a promise was still inside the client")
	}
	if res == nil {
		t.Fatal("no result")
	}
	// The abort may come before every record was handed to the client
	// (a loaded machine); those count as not sent, and every record sent
	// after record 0 is unresolved.
	if res.Acked != 1 || res.Acked+res.Failed+res.NotSent != records || res.Unresolved != res.Failed || res.Failed == 0 {
		t.Fatalf("acked %d, failed %d, unresolved %d, not sent %d: want 1 acknowledged (the promise inside), every other sent record unresolved, %d in all",
			res.Acked, res.Failed, res.Unresolved, res.NotSent, records)
	}
}
