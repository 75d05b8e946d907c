package coord

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kbench/kbench/internal/wallclock"
)

// Barrier waits until every worker still alive has reached the barrier
// name (each scenario's repeat has one), and returns the common start on
// this worker's clock (wallclock.Now's) and the workers that take part.
// Worker 0 decides the start: the moment it read the latest worker's arrival plus
// Options.StartMargin, on the reference clock (its own plus its offset),
// so intervals of every worker line up on it. The arrivals' own append
// times are not used: they come from the leader of worker 0's partition,
// which need not be the reference, the broadcast partition's.
func (w *Worker) Barrier(ctx context.Context, name string) (time.Time, []int, error) {
	if err := w.send(ctx, message{Kind: kindReady, Barrier: name}); err != nil {
		return time.Time{}, nil, err
	}
	if w.run.Index == 0 {
		var start message
		if err := w.wait(ctx, w.opts.BarrierTimeout, "barrier "+name, func() (bool, error) {
			ready := w.readies[name]
			lost := w.lost()
			var members []int
			for i := range w.hellos {
				_, ok := ready[i]
				switch {
				case ok:
					members = append(members, i)
				case !slices.Contains(lost, i) && w.left[i] == "":
					return false, nil // still coming
				}
			}
			slices.Sort(members)
			start = message{Kind: kindStart, Barrier: name, StartMs: w.clock.Reference(wallclock.Now()) + w.opts.StartMargin.Milliseconds(), Members: members}
			return true, nil
		}); err != nil {
			// The others must not wait out their own bound for a start
			// that will not come.
			_ = w.CallOff(context.WithoutCancel(ctx), name, err.Error())
			return time.Time{}, nil, err
		}
		if err := w.send(ctx, start); err != nil {
			return time.Time{}, nil, err
		}
	}
	var start message
	if err := w.wait(ctx, w.opts.BarrierTimeout+w.opts.LostAfter, "barrier "+name, func() (bool, error) {
		s, ok := w.starts[name]
		if ok {
			start = s
			return true, nil
		}
		if slices.Contains(w.lost(), 0) {
			return false, fmt.Errorf("barrier %s: worker 0, which sets the start, was lost", name)
		}
		if reason, gone := w.left[0]; gone {
			return false, fmt.Errorf("barrier %s: worker 0 ended the run (%s)", name, reason)
		}
		return false, nil
	}); err != nil {
		return time.Time{}, nil, err
	}
	if start.Reason != "" {
		return time.Time{}, nil, fmt.Errorf("barrier %s: worker 0 called the repeat off: %s", name, start.Reason)
	}
	if !slices.Contains(start.Members, w.run.Index) {
		return time.Time{}, nil, fmt.Errorf("barrier %s started without this worker (it was reported lost): the run went on with workers %s", name, joinInts(start.Members))
	}
	return w.Clock().Local(start.StartMs), start.Members, nil
}

// CallOff tells the workers waiting at barrier name that it will not
// start (worker 0: it failed before the barrier, with reason); their
// Barrier returns an error at once. A start already sent stands.
func (w *Worker) CallOff(ctx context.Context, name, reason string) error {
	if w.run.Index != 0 {
		return nil
	}
	w.mu.Lock()
	_, sent := w.starts[name]
	w.mu.Unlock()
	if sent {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.opts.LostAfter)
	defer cancel()
	return w.send(ctx, message{Kind: kindStart, Barrier: name, Reason: reason})
}

// Stop tells the others to end repeat name now (worker 0: it was
// interrupted, with reason) and to publish what they measured, which
// worker 0 then gathers: a run stopped on worker 0 counts every worker's
// records up to then, not worker 0's alone.
func (w *Worker) Stop(ctx context.Context, name, reason string) error {
	if w.run.Index != 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.opts.LostAfter)
	defer cancel()
	return w.send(ctx, message{Kind: kindStop, Barrier: name, Reason: reason})
}

// Stopped reports, to a worker other than 0, that worker 0 stopped
// repeat name (Stop): nil while it goes on.
func (w *Worker) Stopped(name string) error {
	if w.run.Index == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if reason, ok := w.stops[name]; ok {
		return fmt.Errorf("worker 0 stopped the run: %s", reason)
	}
	return nil
}

// Verdict is worker 0's outcome of a repeat, once merged: its status and
// its error (result.Repeat's).
type Verdict struct{ Status, Error string }

// Judge tells the others the outcome of repeat name as worker 0 merged
// it, so that every worker's exit code says the run's outcome.
func (w *Worker) Judge(ctx context.Context, name string, v Verdict) error {
	if w.run.Index != 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.opts.LostAfter)
	defer cancel()
	return w.send(ctx, message{Kind: kindVerdict, Barrier: name, Status: v.Status, Reason: v.Error})
}

// AwaitVerdict waits for worker 0's outcome of repeat name (Judge), as
// long as worker 0 gathers slices (Options.ResultTimeout) and a lost
// worker's silence; false when none came (worker 0 left or was lost).
func (w *Worker) AwaitVerdict(ctx context.Context, name string) (Verdict, bool) {
	var v Verdict
	var got bool
	_ = w.wait(ctx, w.opts.ResultTimeout+w.opts.LostAfter, "worker 0's verdict", func() (bool, error) {
		if m, ok := w.verdicts[name]; ok {
			v, got = Verdict{Status: m.Status, Error: m.Reason}, true
			return true, nil
		}
		_, left := w.left[0]
		return left || w.ended || slices.Contains(w.lost(), 0), nil
	})
	return v, got
}
