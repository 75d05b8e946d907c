package runner

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
)

// Reachability remembers, across the runs of a plan, that its cluster did
// not answer: once one check (kadmin.Reachable, at most
// kadmin.ConnectTimeout) found no broker answering, every later run fails
// at once with that reason instead of waiting out the check again. The
// zero value is ready; a nil one checks every time.
type Reachability struct {
	mu  sync.Mutex
	err error // the check that failed; nil while the cluster answered
}

// Check returns the earlier failure if there was one, else checks once.
// Only a cluster that did not answer is remembered, not ctx ending.
func (r *Reachability) Check(ctx context.Context, admin []kgo.Opt) error {
	if err := r.Known(); err != nil {
		return err
	}
	err := kadmin.Reachable(ctx, admin)
	if r != nil && errors.Is(err, kadmin.ErrUnreachable) {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return err
}

// Known returns the check that found the cluster unreachable, if any.
func (r *Reachability) Known() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// stallCheck is how long a producer goes without an acknowledgement
// before the watchdog checks that the cluster still answers.
const stallCheck = 5 * time.Second

// watchdog ends a run whose cluster stopped answering. When a producer
// has had no acknowledgement for stallCheck, it checks the cluster once
// (Reachability.Check, at most kadmin.ConnectTimeout; again after another
// stallCheck if the stall goes on); if no broker answers, it cancels the
// run with that reason, which then ends as after Ctrl-C. A cluster that
// answers, however slowly, lets the run go on.
type watchdog struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	admin  []kgo.Opt
	reach  *Reachability

	mu       sync.Mutex
	checking bool
	next     time.Time // no check before then
	wg       sync.WaitGroup
}

// stalled is a producer's OnStall: it starts a check when one is due.
func (w *watchdog) stalled(s measure.Stall) {
	if s.For < stallCheck {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.checking || time.Now().Before(w.next) || w.ctx.Err() != nil {
		return
	}
	w.checking = true
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		err := w.reach.Check(w.ctx, w.admin)
		if errors.Is(err, kadmin.ErrUnreachable) {
			w.cancel(err)
		}
		w.mu.Lock()
		w.checking, w.next = false, time.Now().Add(stallCheck)
		w.mu.Unlock()
	}()
}

// wait waits for a check in progress, which ends with the run's context.
func (w *watchdog) wait() { w.wg.Wait() }
