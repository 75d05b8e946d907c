package load

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Balance is OpenMessaging Benchmark's search for the highest rate that
// producers and consumers sustain in balance (its producerRate: 0): the
// producers start at a rate, and every ControlPeriod a controller compares
// what they were due to send with what was acknowledged, and what was
// acknowledged with what the consumers read, and moves the rate up or
// down (rateController, OMB's RateController). The rate is the total over
// every producer client sharing the Balance; each client's pacer
// (NewBalancedPacer) keeps its share on a schedule of intended send times
// that follows the rate's changes. Producers report acknowledged records
// with Published, consumers what they read with Received.
type Balance struct {
	clients int
	// segs is the schedule so far: copy-on-write, appended by the
	// controller, read by every client's pacer per record.
	segs   atomic.Pointer[[]segment]
	origin atomic.Int64 // UnixNano the schedule starts at; 0: not yet

	published, received atomic.Int64

	mu     sync.Mutex
	users  int
	stop   chan struct{}
	done   chan struct{}
	ctl    rateController
	points []RatePoint
}

// ControlPeriod is how often OMB adjusts the rate (controlPeriodMillis).
const ControlPeriod = 3 * time.Second

// OMBStartRate is the rate OMB's search starts at (targetPublishRate).
const OMBStartRate = 10_000

// minBalancedRate keeps the rate above 0: OMB's controller can set 0 after
// a receive backlog as large as a period's records, and from 0 it never
// ramps up again (0 + 0 × factor); from 1 record/s it doubles back.
const minBalancedRate = 1

// RatePoint is one rate the controller set, Elapsed after the schedule
// began.
type RatePoint struct {
	Elapsed time.Duration
	Rate    float64
}

// segment is the rate from at (since origin) on; due is how many records
// (over all clients) were due before at.
type segment struct {
	at   time.Duration
	rate float64
	due  float64
}

// NewBalance returns a Balance starting at rate (records/s over all
// clients) for clients producer clients.
func NewBalance(rate float64, clients int) *Balance {
	b := &Balance{clients: max(clients, 1), ctl: newRateController()}
	segs := []segment{{rate: max(rate, minBalancedRate)}}
	b.segs.Store(&segs)
	b.points = []RatePoint{{Rate: segs[0].rate}}
	return b
}

// Published counts records the producers had acknowledged.
func (b *Balance) Published(n int64) { b.published.Add(n) }

// Received counts records the consumers read.
func (b *Balance) Received(n int64) { b.received.Add(n) }

// Rates are the rates the controller set, the start rate first.
func (b *Balance) Rates() []RatePoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]RatePoint(nil), b.points...)
}

// Start runs the controller while any producer does: the first Start
// begins the schedule at start and starts it; stop, called by each once
// it has ended, stops it after the last and waits for it.
func (b *Balance) Start(start time.Time) (stop func()) {
	b.origin.CompareAndSwap(0, start.UnixNano())
	b.mu.Lock()
	defer b.mu.Unlock()
	b.users++
	if b.users == 1 && b.stop == nil {
		b.stop, b.done = make(chan struct{}), make(chan struct{})
		go b.control(b.stop, b.done)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.users--
			last := b.users == 0
			b.mu.Unlock()
			if last {
				close(b.stop)
				<-b.done
			}
		})
	}
}

// control adjusts the rate every ControlPeriod until stop is closed.
func (b *Balance) control(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(ControlPeriod)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			period := now.Sub(last)
			last = now
			b.set(now, b.ctl.nextRate(b.rate(), period, b.published.Load(), b.received.Load()))
		}
	}
}

// rate is the current rate.
func (b *Balance) rate() float64 {
	segs := *b.segs.Load()
	return segs[len(segs)-1].rate
}

// set makes rate the schedule's from now on.
func (b *Balance) set(now time.Time, rate float64) {
	rate = max(rate, minBalancedRate)
	segs := *b.segs.Load()
	cur := segs[len(segs)-1]
	at := time.Duration(now.UnixNano() - b.origin.Load())
	next := segment{at: at, rate: rate, due: cur.due + (at-cur.at).Seconds()*cur.rate}
	grown := append(segs[:len(segs):len(segs)], next)
	b.segs.Store(&grown)
	b.mu.Lock()
	b.points = append(b.points, RatePoint{Elapsed: at, Rate: rate})
	b.mu.Unlock()
}

// due is when the x-th record over all clients is due, since origin.
func (b *Balance) due(x float64) time.Duration {
	segs := *b.segs.Load()
	k := len(segs) - 1
	for k > 0 && segs[k].due > x {
		k--
	}
	s := segs[k]
	secs := s.at.Seconds() + (x-s.due)/s.rate
	if secs > math.MaxInt64/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs * float64(time.Second))
}

// NewBalancedPacer is the pacer of one of b's producer clients, started
// at start: its records are due at its share (1 ÷ clients) of b's rate as
// the controller moves it.
func NewBalancedPacer(b *Balance, start time.Time) Pacer {
	return Pacer{bal: &balanced{b: b, clients: float64(b.clients), start: start}}
}

// balanced is a client's view of a Balance's schedule.
type balanced struct {
	b       *Balance
	clients float64
	start   time.Time
}

// due is the intended send time of the client's record i, since its
// start: the (i × clients)-th record of the whole schedule.
func (p *balanced) due(i int64) time.Duration {
	return p.b.due(float64(i)*p.clients) - time.Duration(p.start.UnixNano()-p.b.origin.Load())
}
