package coord

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Worker is this process's place in a distributed run: it reads the
// control topic from the start, heartbeats, and meets the others at
// barriers. Its methods are safe to call from several goroutines.
type Worker struct {
	run      Run
	opts     Options
	instance string
	control  string
	results  string
	cl       *kgo.Client
	admin    []kgo.Opt

	ctx    context.Context // the reader's and heartbeat's; Close cancels it
	cancel context.CancelFunc
	done   sync.WaitGroup

	controlBytes atomic.Int64 // keys and values this worker wrote to the control topic

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every record read
	read     int64         // the next control offset to read
	hellos   map[int]message
	lastSeen map[int]time.Time
	readies  map[string]map[int]int64 // barrier → worker → reference time (ms)
	starts   map[string]message
	stops    map[string]string  // repeat → why worker 0 stopped it
	verdicts map[string]message // repeat → worker 0's merged outcome
	left     map[int]string
	refused  map[int]message // the first refusal of each index
	ended    bool
	joined   bool            // this worker's hello is written
	conflict error           // another run or a second worker with this index
	pings    map[int64]int64 // this worker's pings: sent µs → reference ms
	clock    Clock
	foreign  foreignRecords
}

// foreignRecords counts the records a worker ignored: not kbench's, or
// written by a process that did not join the run with the worker index
// they name.
type foreignRecords struct {
	n     int
	first string // the first, in words
}

func (f *foreignRecords) add(what string) {
	if f.n == 0 {
		f.first = what
	}
	f.n++
}

// Foreign is how many records of the run's topics this worker ignored so
// far because no worker of the run wrote them (another client writing
// there, or damage), and the first of them in words ("" when none).
func (w *Worker) Foreign() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.foreign.n, w.foreign.first
}

// readControl applies every record of the control topic, in order.
func (w *Worker) readControl() {
	defer w.done.Done()
	for {
		fs := w.cl.PollFetches(w.ctx)
		if w.ctx.Err() != nil {
			return
		}
		fs.EachRecord(func(r *kgo.Record) {
			var m message
			err := json.Unmarshal(r.Value, &m)
			w.mu.Lock()
			if err != nil || m.Kind == "" {
				w.foreign.add(fmt.Sprintf("offset %d of %s: not a kbench control record", r.Offset, w.control))
			} else {
				w.apply(m, r.Timestamp.UnixMilli(), r.Offset)
			}
			w.read = r.Offset + 1
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		})
	}
}

// apply takes one control message into the state; w.mu held. at is the
// record's time: the broker's append time on the run's topics. Only a
// hello makes a worker; any other record counts only from the instance
// whose hello took that index (worker 0's for what only worker 0 says).
func (w *Worker) apply(m message, at, offset int64) {
	if m.Kind == kindHello {
		w.applyHello(m)
		return
	}
	if m.Kind == kindRefused {
		if _, ok := w.refused[m.Worker]; !ok {
			w.refused[m.Worker] = m
		}
		return
	}
	if m.Kind == kindPing {
		if m.Instance == w.instance {
			w.pings[m.SentUs] = at
		}
		return
	}
	h, ok := w.hellos[m.Worker]
	zeroOnly := m.Kind == kindStart || m.Kind == kindEnd || m.Kind == kindStop || m.Kind == kindVerdict
	if !ok || h.Instance != m.Instance || zeroOnly && m.Worker != 0 {
		w.foreign.add(fmt.Sprintf("offset %d of %s: a %s of worker %d from a process that did not join as worker %d", offset, w.control, m.Kind, m.Worker, m.Worker))
		return
	}
	w.lastSeen[m.Worker] = time.Now()
	switch m.Kind {
	case kindReady:
		if w.readies[m.Barrier] == nil {
			w.readies[m.Barrier] = map[int]int64{}
		}
		w.readies[m.Barrier][m.Worker] = at
	case kindStart:
		w.starts[m.Barrier] = m
	case kindStop:
		w.stops[m.Barrier] = m.Reason
	case kindVerdict:
		w.verdicts[m.Barrier] = m
	case kindLeave:
		w.left[m.Worker] = m.Reason
	case kindEnd:
		w.ended = true
	}
}

// applyHello takes a worker's announcement; w.mu held.
func (w *Worker) applyHello(m message) {
	if prev, ok := w.hellos[m.Worker]; ok {
		if prev.Instance != m.Instance {
			w.conflict = errTwoWorkers(w.run.ID, m.Worker, prev, m)
		}
		return
	}
	if m.Plan != w.run.Plan || m.Version != w.run.Version || m.Workers != w.run.Workers {
		w.conflict = errAnotherRun(w.run, m)
		return
	}
	w.hellos[m.Worker] = m
	w.lastSeen[m.Worker] = time.Now()
}

// heartbeat says every Options.Heartbeat that this worker is alive.
func (w *Worker) heartbeat() {
	defer w.done.Done()
	t := time.NewTicker(w.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(w.ctx, w.opts.LostAfter)
			_ = w.send(ctx, message{Kind: kindHeartbeat}) // a missed beat is what the others measure
			cancel()
		}
	}
}

// send writes m, from this worker, to the control topic and waits for it
// to be acknowledged.
func (w *Worker) send(ctx context.Context, m message) error {
	m.Worker, m.Instance = w.run.Index, w.instance
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	key := []byte(strconv.Itoa(w.run.Index))
	if err := w.cl.ProduceSync(ctx, &kgo.Record{Topic: w.control, Key: key, Value: v}).FirstErr(); err != nil {
		return fmt.Errorf("write to the run's control topic %s: %w", w.control, err)
	}
	w.controlBytes.Add(int64(len(key) + len(v)))
	return nil
}

var errTimeout = errors.New("timed out")

// wait re-checks cond (under w.mu) on every record read and at least
// every half heartbeat, until it holds, fails, or timeout passes.
func (w *Worker) wait(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(max(w.opts.Heartbeat/2, 10*time.Millisecond))
	defer tick.Stop()
	for {
		w.mu.Lock()
		ok, err := cond()
		ch := w.changed
		w.mu.Unlock()
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

// Lost are the workers that joined and have said nothing for
// Options.LostAfter without leaving.
func (w *Worker) Lost() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost()
}

func (w *Worker) lost() []int {
	// Silence is only judged while this worker reads its own heartbeats
	// back: a control partition out of reach silences everyone at once.
	if w.joined && time.Since(w.lastSeen[w.run.Index]) > w.opts.LostAfter {
		return nil
	}
	var out []int
	for i := range w.hellos {
		if _, gone := w.left[i]; !gone && time.Since(w.lastSeen[i]) > w.opts.LostAfter {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Gone says why worker i is not there: it left (with its reason) or is
// lost; "" while it is.
func (w *Worker) Gone(i int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if reason, ok := w.left[i]; ok {
		return "left: " + reason
	}
	if slices.Contains(w.lost(), i) {
		return fmt.Sprintf("lost: silent for %s", w.opts.LostAfter)
	}
	return ""
}

// Over reports, to a worker other than 0, that the run is over for it:
// worker 0 left, ended the run or was lost. nil while it goes on.
func (w *Worker) Over() error {
	if w.run.Index == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if reason, gone := w.left[0]; gone {
		return fmt.Errorf("%w: worker 0 ended it (%s)", ErrRunOver, reason)
	}
	if w.ended {
		return fmt.Errorf("%w: worker 0 ended it", ErrRunOver)
	}
	if slices.Contains(w.lost(), 0) {
		return fmt.Errorf("%w: worker 0 was lost (silent for %s)", ErrRunOver, w.opts.LostAfter)
	}
	return nil
}

// ErrRunOver is Over's: the run goes on without this worker.
var ErrRunOver = errors.New("the distributed run is over")

// Leave says this worker has ended (reason: "done", or what stopped it),
// so the others do not wait for it or report it lost.
func (w *Worker) Leave(ctx context.Context, reason string) error {
	return w.send(ctx, message{Kind: kindLeave, Reason: reason})
}

// WaitLeft waits until every other worker has left or is lost, bounded
// by Options.LostAfter: worker 0 deletes the run's topics after it, so
// that no worker is still writing its leave to them.
func (w *Worker) WaitLeft(ctx context.Context) {
	_ = w.wait(ctx, w.opts.LostAfter, "the workers leaving", func() (bool, error) {
		lost := w.lost()
		for i := range w.hellos {
			if _, gone := w.left[i]; !gone && i != w.run.Index && !slices.Contains(lost, i) {
				return false, nil
			}
		}
		return true, nil
	})
}

// End marks the run over (worker 0, after it wrote the merged results):
// a later worker with this run id is refused as a run id in use.
func (w *Worker) End(ctx context.Context) error {
	return w.send(ctx, message{Kind: kindEnd})
}

// ControlBytes is how many bytes (keys and values) this worker wrote to
// the control topic so far.
func (w *Worker) ControlBytes() int64 { return w.controlBytes.Load() }

// Close stops heartbeating and reading and closes the client.
func (w *Worker) Close() {
	w.cancel()
	w.done.Wait()
	w.cl.Close()
}

func newInstance() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
