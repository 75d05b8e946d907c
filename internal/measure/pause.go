package measure

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pause is a stretch in which this process did not run: it was stopped
// (SIGSTOP, a debugger), its host or VM was suspended, or the machine was
// too overloaded to schedule it. Records due then were not sent on time,
// and the latency of those sent late counts the pause: it is kbench's own,
// not the cluster's.
type Pause struct {
	At     time.Time
	Length time.Duration
}

// PauseWatch notices pauses: a goroutine sleeps PauseTick at a time and
// records every sleep that took PauseMin or more longer. Paused tells a
// sender, at any moment, how long kbench has been paused so far.
type PauseWatch struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	seen []Pause
	// last is the watcher's last tick and total the pauses recorded so
	// far (nanoseconds), for Paused.
	last, total atomic.Int64
}

// Bounds of PauseWatch: a tick is cheap (100 wake-ups per second); a Go
// process's own stop-the-world pauses and a busy scheduler stay well under
// PauseMin.
const (
	PauseTick = 10 * time.Millisecond
	PauseMin  = 500 * time.Millisecond
)

// WatchPauses starts watching; Stop ends it and returns the pauses seen.
func WatchPauses() *PauseWatch {
	w := &PauseWatch{stop: make(chan struct{}), done: make(chan struct{})}
	w.last.Store(time.Now().UnixNano())
	go w.run()
	return w
}

func (w *PauseWatch) run() {
	defer close(w.done)
	t := time.NewTicker(PauseTick)
	defer t.Stop()
	last := time.Unix(0, w.last.Load())
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			now := time.Now()
			if gap := now.Sub(last) - PauseTick; gap >= PauseMin {
				w.mu.Lock()
				w.seen = append(w.seen, Pause{At: last.Add(PauseTick), Length: gap})
				w.mu.Unlock()
				w.total.Add(int64(gap))
			}
			last = now
			w.last.Store(now.UnixNano())
		}
	}
}

// Paused is how long kbench has been paused so far at now: the pauses
// recorded, and one the watcher has not recorded yet (its last tick is
// PauseMin or more overdue: it did not run, so neither did the caller).
// It never decreases.
func (w *PauseWatch) Paused(now time.Time) time.Duration {
	total := time.Duration(w.total.Load())
	if gap := time.Duration(now.UnixNano()-w.last.Load()) - PauseTick; gap >= PauseMin {
		total += gap
	}
	return total
}

// Stop ends the watch and returns the pauses it saw, in order.
func (w *PauseWatch) Stop() []Pause {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// PausedWithin is how much of [from, to) the pauses cover.
func PausedWithin(pauses []Pause, from, to time.Time) time.Duration {
	var d time.Duration
	for _, p := range pauses {
		start, end := p.At, p.At.Add(p.Length)
		if start.Before(from) {
			start = from
		}
		if end.After(to) {
			end = to
		}
		if end.After(start) {
			d += end.Sub(start)
		}
	}
	return d
}
