package memcoord

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/coord"
)

// Barrier waits until every live worker reached name, as coord's does:
// worker 0 releases it once every worker that joined arrived, left or is
// lost, at the latest arrival plus StartMargin; a worker the release left
// out, a call-off, and worker 0 lost or gone are errors.
func (w *Worker) Barrier(ctx context.Context, name string) (time.Time, []int, error) {
	if err := w.write("ready "+name, func() {
		if w.h.readies[name] == nil {
			w.h.readies[name] = map[int]time.Time{}
		}
		w.h.readies[name][w.run.Index] = time.Now()
	}); err != nil {
		return time.Time{}, nil, err
	}
	if w.run.Index == 0 {
		var s start
		if err := w.wait(ctx, w.opts.BarrierTimeout, "barrier "+name, func() (bool, error) {
			ready := w.h.readies[name]
			lost := w.lost()
			var latest time.Time
			var members []int
			for i := range w.h.hellos {
				at, ok := ready[i]
				switch {
				case ok:
					members = append(members, i)
					if at.After(latest) {
						latest = at
					}
				case !slices.Contains(lost, i) && w.h.left[i] == "":
					return false, nil // still coming
				}
			}
			slices.Sort(members)
			s = start{at: latest.Add(w.opts.StartMargin), members: members}
			return true, nil
		}); err != nil {
			_ = w.CallOff(context.WithoutCancel(ctx), name, err.Error())
			return time.Time{}, nil, err
		}
		if err := w.write("start "+name, func() { w.h.starts[name] = s }); err != nil {
			return time.Time{}, nil, err
		}
	}
	var s start
	if err := w.wait(ctx, w.opts.BarrierTimeout+w.opts.LostAfter, "barrier "+name, func() (bool, error) {
		if got, ok := w.h.starts[name]; ok {
			s = got
			return true, nil
		}
		if slices.Contains(w.lost(), 0) {
			return false, fmt.Errorf("barrier %s: worker 0, which sets the start, was lost", name)
		}
		if reason, gone := w.h.left[0]; gone {
			return false, fmt.Errorf("barrier %s: worker 0 ended the run (%s)", name, reason)
		}
		return false, nil
	}); err != nil {
		return time.Time{}, nil, err
	}
	if s.reason != "" {
		return time.Time{}, nil, fmt.Errorf("barrier %s: worker 0 called the repeat off: %s", name, s.reason)
	}
	if !slices.Contains(s.members, w.run.Index) {
		return time.Time{}, nil, fmt.Errorf("barrier %s started without this worker (it was reported lost): the run went on with workers %s", name, joinInts(s.members))
	}
	return s.at, s.members, nil
}

// CallOff tells the workers at barrier name that it will not start
// (worker 0; a start already sent stands).
func (w *Worker) CallOff(_ context.Context, name, reason string) error {
	if w.run.Index != 0 {
		return nil
	}
	return w.write("call-off "+name, func() {
		if _, sent := w.h.starts[name]; !sent {
			w.h.starts[name] = start{reason: reason}
		}
	})
}

// Stop tells the others to end repeat name now (worker 0).
func (w *Worker) Stop(_ context.Context, name, reason string) error {
	if w.run.Index != 0 {
		return nil
	}
	return w.write("stop "+name, func() { w.h.stops[name] = reason })
}

// Stopped reports, to a worker other than 0, that worker 0 stopped repeat
// name; nil while it goes on.
func (w *Worker) Stopped(name string) error {
	if w.run.Index == 0 {
		return nil
	}
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if reason, ok := w.h.stops[name]; ok {
		return fmt.Errorf("worker 0 stopped the run: %s", reason)
	}
	return nil
}

// Judge tells the others worker 0's merged outcome of repeat name.
func (w *Worker) Judge(_ context.Context, name string, v coord.Verdict) error {
	if w.run.Index != 0 {
		return nil
	}
	return w.write("verdict "+name, func() { w.h.verdicts[name] = v })
}

// AwaitVerdict waits for worker 0's outcome of repeat name, bounded by
// ResultTimeout plus LostAfter; false when none came (worker 0 left, ended
// the run or was lost).
func (w *Worker) AwaitVerdict(ctx context.Context, name string) (coord.Verdict, bool) {
	var v coord.Verdict
	var got bool
	_ = w.wait(ctx, w.opts.ResultTimeout+w.opts.LostAfter, "worker 0's verdict", func() (bool, error) {
		if m, ok := w.h.verdicts[name]; ok {
			v, got = m, true
			return true, nil
		}
		_, left := w.h.left[0]
		return left || w.h.ended || slices.Contains(w.lost(), 0), nil
	})
	return v, got
}

// Publish stores this worker's slice of name, unless Hub.PublishErr fails
// it. The first slice of a worker counts, as on the results topic.
func (w *Worker) Publish(_ context.Context, name string, slice []byte) error {
	if w.h.PublishErr != nil {
		if err := w.h.PublishErr(w.run.Index, name, slice); err != nil {
			return fmt.Errorf("publish result slice %s: %w", name, err)
		}
	}
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if w.closed {
		return fmt.Errorf("publish result slice %s: %w", name, errClosed)
	}
	if w.h.slices[name] == nil {
		w.h.slices[name] = map[int][]byte{}
	}
	if _, dup := w.h.slices[name][w.run.Index]; !dup {
		w.h.slices[name][w.run.Index] = slices.Clone(slice)
	}
	w.h.notify()
	return nil
}

// Slices waits for the slices of name from members, as coord's does: a
// worker that left or is lost is not waited for, nor anyone past
// ResultTimeout. It returns the slices by worker and the members missing.
func (w *Worker) Slices(ctx context.Context, name string, members []int) (map[int][]byte, []int, error) {
	got := map[int][]byte{}
	take := func() []int {
		var missing []int
		for _, i := range members {
			if s, ok := w.h.slices[name][i]; ok {
				got[i] = s
			} else {
				missing = append(missing, i)
			}
		}
		return missing
	}
	err := w.wait(ctx, w.opts.ResultTimeout, "gathering the slices of "+name, func() (bool, error) {
		lost := w.lost()
		for _, i := range take() {
			if _, left := w.h.left[i]; !left && !slices.Contains(lost, i) {
				return false, nil
			}
		}
		return true, nil
	})
	w.h.mu.Lock()
	missing := take()
	w.h.mu.Unlock()
	if err != nil && ctx.Err() != nil {
		return got, missing, ctx.Err()
	}
	if err != nil && !isTimeout(err) {
		return got, missing, err
	}
	return got, missing, nil
}

// Pieces returns what worker published under names beginning with
// prefix, by name, as coord's does.
func (w *Worker) Pieces(_ context.Context, prefix string, worker int) (map[string][]byte, error) {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	got := map[string][]byte{}
	for name, by := range w.h.slices {
		if s, ok := by[worker]; ok && strings.HasPrefix(name, prefix) {
			got[name] = s
		}
	}
	return got, nil
}

// Announce tells the others worker 0's decision name (worker 0; the first
// of a name stands).
func (w *Worker) Announce(_ context.Context, name string, data []byte) error {
	if w.run.Index != 0 {
		return nil
	}
	return w.write("announce "+name, func() {
		if _, ok := w.h.announced[name]; !ok {
			w.h.announced[name] = slices.Clone(data)
		}
	})
}

// Announced waits for worker 0's announcement name, bounded by
// ResultTimeout plus LostAfter, as coord's does: worker 0 left, ended the
// run or lost ends the wait at once with an error.
func (w *Worker) Announced(ctx context.Context, name string) ([]byte, error) {
	var data []byte
	err := w.wait(ctx, w.opts.ResultTimeout+w.opts.LostAfter, "worker 0's announcement "+name, func() (bool, error) {
		if d, ok := w.h.announced[name]; ok {
			data = d
			return true, nil
		}
		switch reason, left := w.h.left[0]; {
		case left:
			return false, fmt.Errorf("%s: worker 0 ended the run (%s)", name, reason)
		case w.h.ended:
			return false, fmt.Errorf("%s: worker 0 ended the run", name)
		case slices.Contains(w.lost(), 0):
			return false, fmt.Errorf("%s: worker 0 was lost", name)
		}
		return false, nil
	})
	return data, err
}
