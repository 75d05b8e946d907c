package workload

import (
	"time"
)

// reporter takes every client's window once per interval and hands the
// combined stats to ProducerSpec.OnInterval.
type reporter struct {
	spec      ProducerSpec
	clients   []*producerClient
	start     time.Time
	last      time.Time
	done      chan struct{}
	intervals []Interval
	steady    bool
	lastAck   time.Time // when an interval last saw a record complete
}

func newReporter(spec ProducerSpec, clients []*producerClient, start time.Time) *reporter {
	return &reporter{spec: spec, clients: clients, start: start, last: start, lastAck: start, done: make(chan struct{})}
}

func (r *reporter) run() {
	t := time.NewTicker(r.spec.Interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.tick(time.Now(), false)
		case <-r.done:
			r.tick(time.Now(), true)
			return
		}
	}
}

// stop ends the reporter after one last, partial interval.
func (r *reporter) stop() { close(r.done) }

func (r *reporter) tick(now time.Time, final bool) {
	iv := Interval{Elapsed: now.Sub(r.start), Length: now.Sub(r.last), Final: final}
	r.last = now
	if !r.steady && (r.spec.Warmup > 0 || r.spec.WarmupDuration > 0) {
		for _, c := range r.clients {
			if c.steadyBegun.Load() {
				r.steady = true
			}
		}
		// Warmup records completing in the interval where steady state
		// begins belong to neither window: drop them, as the Apache tool
		// starts its steady-state window fresh.
		if r.steady {
			for _, c := range r.clients {
				c.window.Take()
			}
		}
	}
	iv.Steady = r.steady
	var completed int64
	for _, c := range r.clients {
		all := c.window.Take()
		st := c.steadyWindow.Take()
		completed += all.Count
		if r.steady {
			iv.Merge(st)
		} else {
			iv.Merge(all)
		}
	}
	if completed > 0 {
		r.lastAck = now
	} else if !final {
		r.stalled(now)
	}
	if iv.Count == 0 && iv.Length < r.spec.Interval/10 {
		return // a final sliver with nothing in it is noise, not a stall
	}
	r.intervals = append(r.intervals, iv)
	if r.spec.OnInterval != nil {
		r.spec.OnInterval(iv)
	}
}

// stalled tells OnStall that nothing completed in the interval although
// records wait in the clients' buffers, with the last connection error.
func (r *reporter) stalled(now time.Time) {
	if r.spec.OnStall == nil {
		return
	}
	var outstanding int64
	reason := ""
	for _, c := range r.clients {
		outstanding += c.cl.BufferedProduceRecords()
		if e := c.conn.last(); e != "" {
			reason = e
		}
	}
	if outstanding > 0 {
		r.spec.OnStall(Stall{For: now.Sub(r.lastAck), Outstanding: outstanding, LastError: reason})
	}
}

// Stall is a reporting interval in which no record completed although
// records were outstanding.
type Stall struct {
	For         time.Duration // since a record last completed (or the start)
	Outstanding int64         // records in the clients' buffers
	LastError   string        // the last failed connection attempt, if any
}
