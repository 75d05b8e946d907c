package produce

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// How a producer run ends. Sending stops at its records, at the end of
// Duration (or Until), at ctx's cancellation (Ctrl-C), or when a commit
// fails. From then on one deadline per client bounds every wait: the flush,
// the last commit, a Produce blocked on a full buffer. At the deadline the
// records still outstanding are cancelled (they are produced with the
// deadline's context) and unresolved; closeGrace later the client is closed
// whatever it is doing, and the run waits at most closeGrace more for the
// promises. The deadline is, from the moment sending stopped:
//
//   - its records sent: the delivery timeout plus drainMargin (franz-go
//     has answered every record it could by then), as the Apache tool
//     waits in close;
//   - the end of Duration or Until: ProducerSpec.Drain (DefaultDrain);
//   - ctx cancelled: ProducerSpec.FlushTimeout (DefaultInterruptDrain);
//   - a commit or a transaction's start failed: now (the cluster did not
//     answer within the commit's own bound, the delivery timeout plus
//     drainMargin; waiting again would double it);
//   - ProducerSpec.Abort done (a second Ctrl-C): now, and the run waits for
//     nothing more.
//
// The earliest deadline armed wins.
const (
	// DefaultDrain bounds the wait for outstanding records after a timed
	// run's Duration ends, unless ProducerSpec.Drain says otherwise.
	DefaultDrain = 5 * time.Second
	// DefaultInterruptDrain bounds it after ctx is cancelled.
	DefaultInterruptDrain = time.Second
	// closeGrace is how long the run lets a client close, and its last
	// promises run, after its deadline.
	closeGrace = time.Second
)

// ending is one client's deadline. Its ctx is what records are produced
// with and every wait of the client's end takes; it is done at the
// deadline.
type ending struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	at    time.Time // the deadline armed; zero: none yet
	timer *time.Timer
}

func newEnding() *ending {
	e := &ending{}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	return e
}

// arm sets the deadline to d from now unless an earlier one is set.
func (e *ending) arm(d time.Duration) {
	if d <= 0 {
		e.now()
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	at := time.Now().Add(d)
	if !e.at.IsZero() && !at.Before(e.at) {
		return
	}
	e.at = at
	if e.timer != nil {
		e.timer.Stop()
	}
	e.timer = time.AfterFunc(d, e.cancel)
}

// now ends every wait at once.
func (e *ending) now() {
	e.mu.Lock()
	if e.at.IsZero() || time.Now().Before(e.at) {
		e.at = time.Now()
	}
	if e.timer != nil {
		e.timer.Stop()
	}
	e.mu.Unlock()
	e.cancel()
}

// stop releases the timer once the client has ended.
func (e *ending) stop() {
	e.mu.Lock()
	if e.timer != nil {
		e.timer.Stop()
	}
	e.mu.Unlock()
	e.cancel()
}

// closer closes a client once, in the background: closing can wait on
// requests a paused broker never answers, and closing is also what frees a
// franz-go call that does not watch the deadline.
type closer struct {
	once sync.Once
	done chan struct{}
}

func (c *closer) close(cl *kgo.Client) <-chan struct{} {
	c.once.Do(func() {
		c.done = make(chan struct{})
		go func() { cl.Close(); close(c.done) }()
	})
	return c.done
}

// watchEnds arms the clients' deadlines on the run's events: the end of
// sending by time (sendCtx), ctx's cancellation and the abort; and closes a
// client closeGrace after its deadline. The returned function stops
// watching.
func watchEnds(ctx, sendCtx, abort context.Context, clients []*producerClient, drain, interrupted time.Duration) func() {
	var stops []func() bool
	stops = append(stops, context.AfterFunc(sendCtx, func() {
		if ctx.Err() == nil { // ended by Duration or Until
			for _, c := range clients {
				c.end.arm(drain)
			}
		}
	}))
	stops = append(stops, context.AfterFunc(ctx, func() {
		for _, c := range clients {
			c.end.arm(interrupted)
		}
	}))
	if abort != nil {
		stops = append(stops, context.AfterFunc(abort, func() {
			for _, c := range clients {
				c.end.now()
			}
		}))
	}
	var mu sync.Mutex
	var timers []*time.Timer
	for _, c := range clients {
		stops = append(stops, context.AfterFunc(c.end.ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			timers = append(timers, time.AfterFunc(closeGrace, func() { c.closer.close(c.cl) }))
		}))
	}
	return func() {
		for _, s := range stops {
			s()
		}
		mu.Lock()
		defer mu.Unlock()
		for _, t := range timers {
			t.Stop()
		}
	}
}
