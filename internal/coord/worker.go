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
// control topic from the start (worker 0 both partitions, the others the
// broadcast one), heartbeats, and meets the others at barriers. Its
// methods are safe to call from several goroutines.
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
	controlRead  atomic.Int64 // control records this worker read

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every record read
	read      int64         // the next offset to read of the broadcast partition
	hellos    map[int]message
	lastSeen  map[int]time.Time
	readies   map[string]map[int]int64 // barrier → worker → its arrival's append time (ms) on worker 0's partition
	starts    map[string]message
	stops     map[string]string  // repeat → why worker 0 stopped it
	verdicts  map[string]message // repeat → worker 0's merged outcome
	announced map[string]message // name → worker 0's announcement
	left      map[int]string
	refused   map[int]message // the first refusal of each index
	ended     bool
	joined    bool            // this worker's hello is written
	conflict  error           // another run or a second worker with this index
	pings     map[int64]int64 // this worker's pings: sent µs → reference ms
	clock     Clock
	foreign   foreignRecords
	// Whether this worker's view of the heartbeats it judges is current
	// (lost): worker 0's, when it last read its own heartbeat back on its
	// partition; the others', when they last knew they had read the
	// broadcast partition to its end.
	zeroSeen, caughtUp time.Time
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
			w.controlRead.Add(1)
			var m message
			err := json.Unmarshal(r.Value, &m)
			w.mu.Lock()
			where := fmt.Sprintf("offset %d of %s", r.Offset, w.control)
			if r.Partition != broadcast {
				where = fmt.Sprintf("offset %d of partition %d of %s", r.Offset, r.Partition, w.control)
			}
			if err != nil || m.Kind == "" {
				w.foreign.add(where + ": not a kbench control record")
			} else {
				w.apply(m, r.Timestamp.UnixMilli(), where, r.Partition)
			}
			if r.Partition == broadcast {
				w.read = r.Offset + 1
			}
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		})
	}
}

// apply takes one control message, read at where on partition, into the
// state; w.mu held. at is the record's time: the broker's append time on
// the run's topics. Only a hello makes a worker; any other record counts
// only from the instance whose hello took that index (worker 0's for what
// only worker 0 says).
func (w *Worker) apply(m message, at int64, where string, partition int32) {
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
	zeroOnly := m.Kind == kindStart || m.Kind == kindEnd || m.Kind == kindStop || m.Kind == kindVerdict || m.Kind == kindAnnounce
	if !ok || h.Instance != m.Instance || zeroOnly && m.Worker != 0 {
		w.foreign.add(fmt.Sprintf("%s: a %s of worker %d from a process that did not join as worker %d", where, m.Kind, m.Worker, m.Worker))
		return
	}
	w.lastSeen[m.Worker] = time.Now()
	if m.Worker == w.run.Index && partition == toZero {
		w.zeroSeen = time.Now()
	}
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
	case kindAnnounce:
		if _, ok := w.announced[m.Barrier]; !ok { // the first stands
			w.announced[m.Barrier] = m
		}
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
	if m.Instance == w.instance {
		w.zeroSeen = time.Now() // its first heartbeat comes a beat later
	}
}

// heartbeat says every Options.Heartbeat that this worker is alive:
// worker 0 on both partitions (the others read its beats on the broadcast
// one; it reads its own back on its partition, to know that it still
// reads the others'), the others on worker 0's partition only.
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
			// A missed beat is what the others measure.
			_ = w.send(ctx, message{Kind: kindHeartbeat})
			if w.run.Index == 0 {
				_ = w.sendTo(ctx, broadcast, message{Kind: kindHeartbeat})
			} else {
				w.checkCaughtUp(ctx)
			}
			cancel()
		}
	}
}

// checkCaughtUp, on a worker other than 0 that has read nothing of worker
// 0 for two heartbeats, asks for the broadcast partition's end: read to
// it, the silence is worker 0's and not this worker's reader's (its
// partition out of reach), and lost may judge it.
func (w *Worker) checkCaughtUp(ctx context.Context) {
	w.mu.Lock()
	_, zero := w.hellos[0] // before worker 0 joined there is nobody to judge
	quiet := zero && time.Since(w.lastSeen[0]) > 2*w.opts.Heartbeat
	w.mu.Unlock()
	if !quiet {
		return
	}
	end, err := endOffsetOnce(ctx, w.cl, w.control)
	if err != nil {
		return
	}
	w.mu.Lock()
	if w.read >= end {
		w.caughtUp = time.Now()
	}
	w.mu.Unlock()
}

// partitionOf is the control partition m goes to: what only worker 0 acts
// on (the others' heartbeats and leaves, every arrival at a barrier) to
// worker 0's, the rest to the broadcast partition, which every worker reads.
func (w *Worker) partitionOf(m message) int32 {
	switch m.Kind {
	case kindReady, kindHeartbeat:
		// Worker 0's heartbeats too: it reads them back there
		// (heartbeat sends the others a copy).
		return toZero
	case kindLeave:
		if w.run.Index != 0 {
			return toZero
		}
	}
	return broadcast
}

// send writes m, from this worker, to its control partition (partitionOf)
// and waits for it to be acknowledged.
func (w *Worker) send(ctx context.Context, m message) error {
	return w.sendTo(ctx, w.partitionOf(m), m)
}

// sendTo is send to partition p of the control topic.
func (w *Worker) sendTo(ctx context.Context, p int32, m message) error {
	m.Worker, m.Instance = w.run.Index, w.instance
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	key := []byte(strconv.Itoa(w.run.Index))
	if err := w.cl.ProduceSync(ctx, &kgo.Record{Topic: w.control, Partition: p, Key: key, Value: v}).FirstErr(); err != nil {
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
// Options.LostAfter without leaving: on worker 0 any of them, on the
// others worker 0 only (they read no one else's heartbeats).
func (w *Worker) Lost() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost()
}

func (w *Worker) lost() []int {
	// Silence is only judged while this worker knows it reads the
	// heartbeats it judges: a control partition out of reach silences
	// everyone at once.
	if w.joined && !w.current() {
		return nil
	}
	var out []int
	for i := range w.hellos {
		if _, gone := w.left[i]; !gone && (w.run.Index == 0 || i == 0) && time.Since(w.lastSeen[i]) > w.opts.LostAfter {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// current says whether this worker reads the heartbeats it judges; w.mu
// held. Worker 0 read one of its own records back on its partition within
// LostAfter; another worker, which judges only worker 0, knew lately that
// it had read the broadcast partition to its end (checkCaughtUp).
func (w *Worker) current() bool {
	if w.run.Index == 0 {
		return time.Since(w.zeroSeen) <= w.opts.LostAfter
	}
	return time.Since(w.caughtUp) <= w.opts.LostAfter/2
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

// ControlRead is how many control records this worker read so far.
func (w *Worker) ControlRead() int64 { return w.controlRead.Load() }

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
