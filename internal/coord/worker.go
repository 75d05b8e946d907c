package coord

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/userr"
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
	left     map[int]string
	ended    bool
	joined   bool            // this worker's hello is written
	conflict error           // another run or a second worker with this index
	pings    map[int64]int64 // this worker's pings: sent µs → reference ms
	clock    Clock
}

// Join makes this process worker run.Index of the run: it checks the run,
// creates the run's topics if they are missing, reads what the other
// workers said, refuses a conflicting run, announces itself and waits
// until every worker has (bounded by Options.JoinTimeout). It then
// estimates this worker's clock offset against the control partition's
// leader. opts reach the cluster under test (bootstrap and security).
func Join(ctx context.Context, opts []kgo.Opt, run Run, o Options) (*Worker, error) {
	if err := run.Check(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	w := &Worker{run: run, opts: o, instance: newInstance(), admin: opts,
		changed: make(chan struct{}), hellos: map[int]message{}, lastSeen: map[int]time.Time{},
		readies: map[string]map[int]int64{}, starts: map[string]message{}, left: map[int]string{}, pings: map[int64]int64{}}
	w.control, w.results = Topics(run.ID)
	if err := createTopics(ctx, opts, w.control, w.results, o.Replication); err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...),
		kgo.ConsumeTopics(w.control),
		kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()), // opts may carry auto.offset.reset=latest
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.ProducerBatchCompression(kgo.ZstdCompression()),
		kgo.ProducerBatchMaxBytes(resultMaxBytes),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(30*time.Second),
		kgo.UnknownTopicRetries(-1), // a new topic's leader may not know it yet; the delivery timeout bounds it
	)...)
	if err != nil {
		return nil, fmt.Errorf("coordination client: %w", err)
	}
	w.cl = cl
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.done.Add(1)
	go w.readControl()
	if err := w.join(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func (w *Worker) join(ctx context.Context) error {
	// Read what is already there before writing anything: a run that
	// ended, or workers of another plan, must find this worker silent.
	end, err := endOffsetOf(ctx, w.cl, w.control, topicSettle)
	if err != nil {
		return err
	}
	if err := w.wait(ctx, w.opts.JoinTimeout, "reading the run's control topic", func() (bool, error) {
		h, taken := w.hellos[w.run.Index]
		switch {
		case w.conflict != nil:
			return false, w.conflict
		case w.read < end:
			return false, nil
		case w.ended:
			return false, userr.Errorf("run id %q is in use: a run of that id has ended (its topics %s and %s are still there); give a new --run-id, or delete those topics first",
				w.run.ID, w.control, w.results)
		case taken:
			return false, userr.Errorf("two workers have index %d on run %q (host %s pid %d is there already): give each its own --worker-index, or this run a new --run-id if the other is an earlier run's",
				w.run.Index, w.run.ID, h.Host, h.PID)
		}
		return true, nil
	}); err != nil {
		return err
	}
	host, _ := os.Hostname()
	if err := w.send(ctx, message{Kind: kindHello, Workers: w.run.Workers, Plan: w.run.Plan, Version: w.run.Version, Host: host, PID: os.Getpid()}); err != nil {
		return err
	}
	w.mu.Lock()
	w.joined = true
	w.mu.Unlock()
	w.done.Add(1)
	go w.heartbeat()
	if err := w.wait(ctx, w.opts.JoinTimeout, "waiting for every worker to join", func() (bool, error) {
		if w.conflict != nil {
			return false, w.conflict
		}
		// Its own hello read back: a second worker with this index that
		// wrote at the same moment is seen by then.
		return len(w.missing()) == 0 && w.hellos[w.run.Index].Instance == w.instance, nil
	}); err != nil {
		if errors.Is(err, errTimeout) {
			w.mu.Lock()
			missing := w.missing()
			w.mu.Unlock()
			return fmt.Errorf("worker(s) %s of run %q did not join within %s: start each with --run-id %s --workers %d --worker-index N (a Kubernetes Indexed Job sets the index)",
				joinInts(missing), w.run.ID, w.opts.JoinTimeout, w.run.ID, w.run.Workers)
		}
		return err
	}
	return w.measureClock(ctx)
}

// missing are the indices no worker has announced yet; w.mu held.
func (w *Worker) missing() []int {
	var out []int
	for i := 0; i < w.run.Workers; i++ {
		if _, ok := w.hellos[i]; !ok {
			out = append(out, i)
		}
	}
	return out
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
			if err := json.Unmarshal(r.Value, &m); err != nil {
				return // not ours; never fatal
			}
			w.mu.Lock()
			w.apply(m, r.Timestamp.UnixMilli())
			w.read = r.Offset + 1
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		})
	}
}

// apply takes one control message into the state; w.mu held. at is the
// record's time: the broker's append time on the run's topics.
func (w *Worker) apply(m message, at int64) {
	switch m.Kind {
	case kindHello:
		if prev, ok := w.hellos[m.Worker]; ok && prev.Instance != m.Instance {
			w.conflict = userr.Errorf("two workers have index %d on run %q (host %s pid %d, and host %s pid %d): give each its own --worker-index, or this run a new --run-id if the other is an earlier run's",
				m.Worker, w.run.ID, prev.Host, prev.PID, m.Host, m.PID)
			return
		}
		if m.Plan != w.run.Plan || m.Version != w.run.Version || m.Workers != w.run.Workers {
			w.conflict = userr.Errorf("run %q has worker %d of another run (plan %s, kbench %s, %d workers; this worker: plan %s, kbench %s, %d workers): every worker of a run id must run the same plan and settings with the same kbench and --workers; give this run a new --run-id",
				w.run.ID, m.Worker, m.Plan, m.Version, m.Workers, w.run.Plan, w.run.Version, w.run.Workers)
			return
		}
		w.hellos[m.Worker] = m
	case kindReady:
		if w.readies[m.Barrier] == nil {
			w.readies[m.Barrier] = map[int]int64{}
		}
		w.readies[m.Barrier][m.Worker] = at
	case kindStart:
		w.starts[m.Barrier] = m
	case kindLeave:
		w.left[m.Worker] = m.Reason
	case kindEnd:
		w.ended = true
	case kindPing:
		if m.Instance == w.instance {
			w.pings[m.SentUs] = at
		}
	}
	if h, ok := w.hellos[m.Worker]; ok && h.Instance == m.Instance {
		w.lastSeen[m.Worker] = time.Now()
	}
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

// Barrier waits until every worker still alive has reached the barrier
// name (each scenario's repeat has one), and returns the common start in
// this worker's clock and the workers that take part. Worker 0 decides
// the start: the latest worker's arrival plus Options.StartMargin, on the
// reference clock, so intervals of every worker line up on it.
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
			var latest int64
			for i := range w.hellos {
				at, ok := ready[i]
				switch {
				case ok:
					members = append(members, i)
					latest = max(latest, at)
				case !slices.Contains(lost, i) && w.left[i] == "":
					return false, nil // still coming
				}
			}
			slices.Sort(members)
			start = message{Kind: kindStart, Barrier: name, StartMs: latest + w.opts.StartMargin.Milliseconds(), Members: members}
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

// resultMaxBytes bounds one result slice on the results topic (its
// interval series and histograms: about 1 MB per workload-hour).
const resultMaxBytes = 32 << 20

// createTopics creates the run's topics unless they exist: one partition
// each (one order for every reader), the broker's append time on every
// record (the reference clock), room for large result slices.
func createTopics(ctx context.Context, opts []kgo.Opt, control, results string, replication int16) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("coordination admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if replication <= 0 {
		// Three copies where the cluster has them: a fault on one broker
		// must not silence the run's coordination. The cluster's default
		// (often 1) when its brokers cannot be counted.
		if md, err := adm.BrokerMetadata(ctx); err == nil && len(md.Brokers) > 0 {
			replication = int16(min(3, len(md.Brokers)))
		}
	}
	maxBytes := strconv.Itoa(resultMaxBytes + 1<<20)
	appendTime := "LogAppendTime"
	for _, t := range []struct {
		name    string
		configs map[string]*string
	}{
		{control, map[string]*string{"message.timestamp.type": &appendTime}},
		{results, map[string]*string{"message.timestamp.type": &appendTime, "max.message.bytes": &maxBytes}},
	} {
		resp, err := adm.CreateTopic(ctx, 1, replication, t.configs, t.name)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("create the run's topic %s: %w", t.name, err)
		}
	}
	return nil
}

// endOffset is a one-partition topic's end offset now, asked with a
// client of its own (from a machine that is not a worker).
func endOffset(ctx context.Context, opts []kgo.Opt, topic string) (int64, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	return endOffsetOf(ctx, cl, topic, 0) // a run that ended: its topics settled long ago
}

// endOffsetOf is endOffset asked with cl. A topic just created may be
// unknown to its leader for a moment (a fresh run's topics on a cluster of
// several brokers): asked again for up to settle.
func endOffsetOf(ctx context.Context, cl *kgo.Client, topic string, settle time.Duration) (int64, error) {
	deadline := time.Now().Add(settle)
	for {
		end, err := endOffsetOnce(ctx, cl, topic)
		settling := errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.LeaderNotAvailable)
		if err == nil || !settling || time.Now().After(deadline) {
			return end, err
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// topicSettle bounds the wait for a new topic's leader to know it.
const topicSettle = 30 * time.Second

func endOffsetOnce(ctx context.Context, cl *kgo.Client, topic string) (int64, error) {
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("read the end of %s: %w", topic, err)
	}
	if err := ends.Error(); err != nil {
		return 0, fmt.Errorf("read the end of %s: %w", topic, err)
	}
	o, ok := ends.Lookup(topic, 0)
	if !ok {
		return 0, fmt.Errorf("read the end of %s: %w", topic, kerr.UnknownTopicOrPartition)
	}
	if o.Err != nil {
		return 0, fmt.Errorf("read the end of %s: %w", topic, o.Err)
	}
	return o.Offset, nil
}
