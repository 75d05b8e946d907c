// Package memcoord is an in-memory stand-in for internal/coord, for tests:
// a Hub holds one distributed run's control and results traffic, and each
// Worker joined to it has the verbs of *coord.Worker that the study uses
// (study.Coordinator), with coord's semantics, so that the study's worker
// state machine can be driven by a hundred goroutine workers in
// milliseconds. It starts no goroutine: waits re-check on every change
// and on a ticker, as coord's do.
//
// What it models, as coord does it: joining waits for every index and
// refuses a second worker with a taken index, workers of another plan, a
// run that ended; barriers are released by worker 0 once every live
// worker arrived, the start the latest arrival plus Options.StartMargin;
// a worker closed without leaving (Close: killed) is lost after
// Options.LostAfter; worker 0's call-offs, stops, verdicts and announcements reach every
// worker; slices are gathered until each member published, left or was
// lost. What a worker sees follows coord's routing of the control traffic:
// worker 0 reads everyone's heartbeats and leaves, the others only worker
// 0's, so only worker 0 judges others lost.
//
// What it does not model: clocks (every offset is zero), foreign records,
// control bytes beyond a count of what was written, and the topics.
package memcoord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/userr"
)

// Hub is one distributed run in memory. Its methods are safe to call
// from several goroutines.
type Hub struct {
	// PublishErr, if set, decides whether a worker's publish of a slice
	// fails (a slice too large for the results topic, a broker error):
	// non-nil fails it and nothing is stored.
	PublishErr func(worker int, name string, slice []byte) error

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	run       *coord.Run    // the first hello's: the run every worker must match
	hellos    map[int]*Worker
	silent    map[int]time.Time // closed (killed) without leaving: since when
	left      map[int]string
	refused   map[int]string
	readies   map[string]map[int]time.Time
	starts    map[string]start
	stops     map[string]string
	verdicts  map[string]coord.Verdict
	announced map[string][]byte
	slices    map[string]map[int][]byte
	ended     bool
}

// start is worker 0's release of a barrier, or its call-off (reason set).
type start struct {
	at      time.Time
	members []int
	reason  string
}

// New is an empty run.
func New() *Hub {
	return &Hub{changed: make(chan struct{}), hellos: map[int]*Worker{}, silent: map[int]time.Time{},
		left: map[int]string{}, refused: map[int]string{}, readies: map[string]map[int]time.Time{},
		starts: map[string]start{}, stops: map[string]string{}, verdicts: map[string]coord.Verdict{}, announced: map[string][]byte{},
		slices: map[string]map[int][]byte{}}
}

// notify wakes every wait; h.mu held.
func (h *Hub) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Worker is one worker's place in a Hub's run.
type Worker struct {
	h    *Hub
	run  coord.Run
	opts coord.Options

	// h.mu guards the rest.
	closed  bool
	written int64 // control records this worker wrote
}

// Join makes a worker of run on h, as coord.Join does: it refuses what
// coord refuses (user errors), announces the worker and waits until every
// index has (bounded by o.JoinTimeout). A worker that joined and then
// gives up leaves, so that the others stop waiting.
func (h *Hub) Join(ctx context.Context, run coord.Run, o coord.Options) (*Worker, error) {
	if err := run.Check(); err != nil {
		return nil, err
	}
	o = withDefaults(o)
	w := &Worker{h: h, run: run, opts: o}
	h.mu.Lock()
	if err := h.refuse(run); err != nil {
		if !userr.Is(err) || !strings.Contains(err.Error(), "is in use") {
			h.refused[run.Index] = err.Error() // the waiting workers say why it did not come
			h.notify()
		}
		h.mu.Unlock()
		return nil, err
	}
	if h.run == nil {
		h.run = &run
	}
	h.hellos[run.Index] = w
	w.written++
	h.notify()
	h.mu.Unlock()
	told := map[int]bool{}
	err := w.wait(ctx, o.JoinTimeout, "waiting for every worker to join", func() (bool, error) {
		for i := range h.hellos {
			if reason, gone := h.left[i]; gone && i != run.Index {
				return false, fmt.Errorf("worker %d left run %q before it began (%s)", i, run.ID, reason)
			}
		}
		missing := h.missing()
		for _, i := range missing {
			if r, ok := h.refused[i]; ok && !told[i] {
				told[i] = true
				o.Log(fmt.Sprintf("kbench: worker %d was refused: %s; waiting for a worker %d that runs this plan", i, r, i))
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		h.mu.Lock()
		missing := h.missing()
		h.mu.Unlock()
		if errors.Is(err, errTimeout) {
			err = fmt.Errorf("worker(s) %s of run %q did not join within %s", joinInts(missing), run.ID, o.JoinTimeout)
		}
		_ = w.Leave(context.WithoutCancel(ctx), err.Error())
		w.Close()
		return nil, err
	}
	return w, nil
}

// refuse is why run cannot join h, nil when it can; h.mu held. The words
// are coord's.
func (h *Hub) refuse(run coord.Run) error {
	switch {
	case h.ended:
		return userr.Errorf("run id %q is in use: a run of that id has ended; give a new --run-id", run.ID)
	case h.run != nil && (h.run.Plan != run.Plan || h.run.Version != run.Version || h.run.Workers != run.Workers):
		return userr.Errorf("run %q has worker 0 of another run (plan %s, kbench %s, %d workers; this worker: plan %s, kbench %s, %d workers): give this run a new --run-id",
			run.ID, h.run.Plan, h.run.Version, h.run.Workers, run.Plan, run.Version, run.Workers)
	case h.hellos[run.Index] != nil:
		return userr.Errorf("two workers have index %d on run %q: give each its own --worker-index", run.Index, run.ID)
	}
	return nil
}

// missing are the indices not announced yet; h.mu held.
func (h *Hub) missing() []int {
	var out []int
	for i := 0; i < h.run.Workers; i++ {
		if h.hellos[i] == nil {
			out = append(out, i)
		}
	}
	return out
}

func withDefaults(o coord.Options) coord.Options {
	if o.Log == nil {
		o.Log = func(string) {}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	// coord's defaults, so that a test that sets none waits as a run would.
	def(&o.Heartbeat, time.Second)
	def(&o.LostAfter, 10*time.Second)
	def(&o.JoinTimeout, 2*time.Minute)
	def(&o.BarrierTimeout, 5*time.Minute)
	def(&o.ResultTimeout, 5*time.Minute)
	def(&o.StartMargin, 2*time.Second)
	return o
}

var errTimeout = errors.New("timed out")

// errClosed is what a closed (killed) worker's calls return: its process
// is gone.
var errClosed = errors.New("memcoord: this worker was closed")

// wait re-checks cond (under h.mu) on every change and at least every
// quarter of LostAfter (silence becomes loss with time alone), until it
// holds, fails, the worker is closed, or timeout passes.
func (w *Worker) wait(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(max(w.opts.LostAfter/4, time.Millisecond))
	defer tick.Stop()
	for {
		w.h.mu.Lock()
		if w.closed {
			w.h.mu.Unlock()
			return fmt.Errorf("%s: %w", what, errClosed)
		}
		ok, err := cond()
		ch := w.h.changed
		w.h.mu.Unlock()
		if err != nil || ok {
			return err
		}
		select {
		case <-ch:
		case <-tick.C:
		case <-deadline.C:
			return fmt.Errorf("%s: %w after %s", what, errTimeout, timeout)
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
	}
}

// write records one control record of this worker and applies it with
// apply (under h.mu); a closed worker writes nothing.
func (w *Worker) write(what string, apply func()) error {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if w.closed {
		return fmt.Errorf("write %s: %w", what, errClosed)
	}
	apply()
	w.written++
	w.h.notify()
	return nil
}

// Index is the worker's index in its run.
func (w *Worker) Index() int { return w.run.Index }

// Close stops the worker as if its process were killed: it writes nothing
// more, its waits end, and the others take it as lost after LostAfter
// unless it left first.
func (w *Worker) Close() {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	if w.h.hellos[w.run.Index] == w {
		w.h.silent[w.run.Index] = time.Now()
	}
	w.h.notify()
}

// lost are the workers this worker takes as lost: closed without leaving
// for LostAfter, among those it reads the heartbeats of (worker 0: all;
// the others: worker 0's only, as coord routes them); h.mu held.
func (w *Worker) lost() []int {
	var out []int
	for i, since := range w.h.silent {
		_, gone := w.h.left[i]
		if !gone && (w.run.Index == 0 || i == 0) && time.Since(since) > w.opts.LostAfter {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Lost are the workers that joined and fell silent for LostAfter without
// leaving (worker 0 judges everyone, the others worker 0 only).
func (w *Worker) Lost() []int {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	return w.lost()
}

// Gone says why worker i is not there: it left, or is lost; "" while it is.
func (w *Worker) Gone(i int) string {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if reason, ok := w.h.left[i]; ok {
		return "left: " + reason
	}
	if slices.Contains(w.lost(), i) {
		return fmt.Sprintf("lost: silent for %s", w.opts.LostAfter)
	}
	return ""
}

// Over reports, to a worker other than 0, that the run is over for it
// (worker 0 left, ended it or was lost; or this worker was closed).
func (w *Worker) Over() error {
	if w.run.Index == 0 {
		return nil
	}
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	switch reason, gone := w.h.left[0]; {
	case w.closed:
		return fmt.Errorf("%w: %v", coord.ErrRunOver, errClosed)
	case gone:
		return fmt.Errorf("%w: worker 0 ended it (%s)", coord.ErrRunOver, reason)
	case w.h.ended:
		return fmt.Errorf("%w: worker 0 ended it", coord.ErrRunOver)
	case slices.Contains(w.lost(), 0):
		return fmt.Errorf("%w: worker 0 was lost (silent for %s)", coord.ErrRunOver, w.opts.LostAfter)
	}
	return nil
}

// Foreign is always none: nobody else writes to a Hub.
func (w *Worker) Foreign() (int, string) { return 0, "" }

// Clock is a zero offset: every worker shares the process's clock.
func (w *Worker) Clock() coord.Clock { return coord.Clock{Samples: 1} }

// ControlBytes counts the control records this worker wrote, one byte
// each: a stand-in for coord's bytes, enough to see it grow.
func (w *Worker) ControlBytes() int64 {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	return w.written
}

// Leave says this worker has ended, so nobody waits for it.
func (w *Worker) Leave(_ context.Context, reason string) error {
	return w.write("leave", func() {
		if _, ok := w.h.left[w.run.Index]; !ok {
			w.h.left[w.run.Index] = reason
		}
	})
}

// End marks the run over (worker 0): a later joiner is refused.
func (w *Worker) End(context.Context) error {
	return w.write("end", func() { w.h.ended = true })
}

// WaitLeft waits, bounded by LostAfter, until every other worker left or
// is lost.
func (w *Worker) WaitLeft(ctx context.Context) {
	_ = w.wait(ctx, w.opts.LostAfter, "the workers leaving", func() (bool, error) {
		lost := w.lost()
		for i := range w.h.hellos {
			if _, gone := w.h.left[i]; !gone && i != w.run.Index && !slices.Contains(lost, i) {
				return false, nil
			}
		}
		return true, nil
	})
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func isTimeout(err error) bool { return errors.Is(err, errTimeout) }
