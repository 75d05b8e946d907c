package produce

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// DefaultStall is how long a run of a number of records (Records, no
// Duration) waits without an acknowledgement while records are
// outstanding before it gives up, unless ProducerSpec.Stall says
// otherwise. It is longer than a leader election after a broker dies (a
// KRaft controller fences a dead broker after 9 s) and shorter than the
// Java client's 2-minute delivery timeout, after which a dead broker's
// records would only start failing, one buffer at a time.
const DefaultStall = 30 * time.Second

// ErrStalled is the error of a run that ended because no record was
// acknowledged within its stall bound.
var ErrStalled = errors.New("the cluster stopped acknowledging records")

// stallWatch ends a run of a number of records once no record has been
// acknowledged for bound while records were outstanding: a dead or paused
// broker would otherwise hold it as long as it has records to send, each
// failing only at the delivery timeout. Sending stops, every client's
// deadline is now (outstanding records become unresolved), and err says
// why.
type stallWatch struct {
	bound   time.Duration
	clients []*producerClient
	stop    context.CancelCauseFunc // ends sending
	done    chan struct{}
	exited  chan struct{}
	err     atomic.Pointer[error]
}

func startStallWatch(bound time.Duration, clients []*producerClient, stop context.CancelCauseFunc) *stallWatch {
	w := &stallWatch{bound: bound, clients: clients, stop: stop, done: make(chan struct{}), exited: make(chan struct{})}
	go w.run()
	return w
}

func (w *stallWatch) run() {
	defer close(w.exited)
	every := min(max(w.bound/20, 10*time.Millisecond), time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	acked, since := int64(-1), time.Now()
	for {
		select {
		case <-w.done:
			return
		case now := <-tick.C:
			var n, outstanding int64
			for _, c := range w.clients {
				n += c.ackedSeen.Load()
				outstanding += c.cl.BufferedProduceRecords()
			}
			if n != acked || outstanding == 0 {
				acked, since = n, now
				continue
			}
			if stalled := now.Sub(since); stalled >= w.bound {
				err := fmt.Errorf("%w: none acknowledged for %s with %d outstanding; a run of a number of records ends after %s without an acknowledgement (set delivery.timeout.ms to wait longer)",
					ErrStalled, stalled.Round(time.Millisecond), outstanding, w.bound)
				w.err.Store(&err)
				for _, c := range w.clients {
					c.end.now()
				}
				w.stop(err)
				return
			}
		}
	}
}

// close stops watching and returns the stall's error, if it ended the run.
func (w *stallWatch) close() error {
	close(w.done)
	<-w.exited
	if p := w.err.Load(); p != nil {
		return *p
	}
	return nil
}
