package produce

import (
	"runtime"
	"sync/atomic"
	"time"
)

// promiseGate is how a client's promise worker and the run agree on the
// worker's fields (counts, histograms, windows): the run may read them
// once every promise has completed (waitPromises), or once it has
// abandoned the client and no promise is inside (abandon). It replaces a
// flag and a 20 ms sleep that assumed any promise past the flag finished
// within it; a promise preempted longer (a loaded machine) wrote while
// collect read.
//
// One word holds the number of completed promises (above gateShift) and
// the gate's state (below), so a promise costs two atomic operations:
// enter marks it busy (a compare-and-swap), leave clears the mark and
// counts it in one add. Its zero value is ready; sent is called once
// sending has ended.
type promiseGate struct {
	word atomic.Int64
	// sentPlus1 is the number of records handed to franz-go plus one,
	// stored once sending has ended (0 while sending): the promise that
	// completes that many closes all.
	sentPlus1 atomic.Int64
	all       chan struct{}
	allOnce   atomic.Bool // all closed (by sent or by the last promise)
}

const (
	gateBusy      = 1 // a promise is inside
	gateAbandoned = 2 // the run has given up: promises stay out
	gateShift     = 2
	gateOne       = 1 << gateShift // one completed promise
)

// enter is a promise's first step: true when it may touch the worker's
// fields, false once the client is abandoned. franz-go calls a client's
// promises one at a time, so at most one is inside, and only abandon
// competes for the word. Every enter is paired with a leave.
func (g *promiseGate) enter() bool {
	for {
		w := g.word.Load()
		if w&gateAbandoned != 0 {
			return false
		}
		if g.word.CompareAndSwap(w, w|gateBusy) {
			return true
		}
	}
}

// leave is a promise's last step: it clears enter's mark (entered: what
// enter returned) and counts the promise in one add. The promise that
// completes the last record sent wakes waitPromises.
func (g *promiseGate) leave(entered bool) {
	d := int64(gateOne)
	if entered {
		d -= gateBusy
	}
	n := g.word.Add(d) >> gateShift
	if n+1 == g.sentPlus1.Load() {
		g.closeAll()
	}
}

// completed is the number of promises that have returned.
func (g *promiseGate) completed() int64 { return g.word.Load() >> gateShift }

// sent records that sending has ended with n records handed to franz-go.
// Called once, before waitPromises. No wake-up is lost: leave adds, then
// loads sentPlus1; sent stores sentPlus1, then loads the count. Atomics
// are sequentially consistent, so whichever of the two loads comes last
// sees the other's write, and one of them (or both: closeAll is once)
// closes all.
func (g *promiseGate) sent(n int64) {
	g.all = make(chan struct{}) // before the store that publishes it
	g.sentPlus1.Store(n + 1)
	if g.completed() == n {
		g.closeAll()
	}
}

func (g *promiseGate) closeAll() {
	if g.allOnce.CompareAndSwap(false, true) {
		close(g.all)
	}
}

// abandoned reports whether the run has given up on the client.
func (g *promiseGate) abandoned() bool { return g.word.Load()&gateAbandoned != 0 }

// abandon shuts promises out and returns once none is inside; from then
// on the worker's fields are the run's to read. The flag goes first, so
// the wait is for the one promise already inside, not for a gap in a
// stream of them (waiting for an idle moment to swap the flag in, the run
// watched the worker complete a whole batch). A promise inside runs
// kbench's own bookkeeping only (microseconds, no blocking), so the wait
// is short; it yields rather than sleeps so that the promise's goroutine
// gets the CPU on a loaded machine, and backs off to short sleeps after
// abandonSpins so that a descheduled promise does not cost a core.
func (g *promiseGate) abandon() {
	g.word.Or(gateAbandoned)
	for spins := 0; g.word.Load()&gateBusy != 0; spins++ {
		if spins < abandonSpins {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

const abandonSpins = 1000

// waitPromises waits, until deadline at most, for every record handed to
// franz-go to have had its promise called: after an interrupted flush,
// Close fails the remaining records asynchronously. It reports whether all
// completed; after it returns true, the promise worker's fields are safe to
// read (the last promise's leave happened before all was closed).
func (c *producerClient) waitPromises(deadline time.Time) bool {
	select {
	case <-c.gate.all:
		return true
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-c.gate.all:
		return true
	case <-t.C:
		return false
	}
}

// abandon makes the promise worker leave the client's results alone, so
// that the run can report them while promises are still outstanding: a
// promise that has not yet entered counts nothing (the run counts its
// record unresolved), one inside is waited for.
func (c *producerClient) abandon() { c.gate.abandon() }
