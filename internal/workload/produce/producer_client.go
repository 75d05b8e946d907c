package produce

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/workload/engine"
)

// producerClient is one franz-go client and what it measured. Fields below
// "promise worker" are written only by the client's promise worker and read
// after the client is closed.
type producerClient struct {
	cl      *kgo.Client
	slabs   slabs     // the records' slots
	start   time.Time // the run's start; send times count from it
	startNs int64     // start in Unix nanoseconds
	// ts is the Kafka timestamp of millisecond tsMs (Unix), made once per
	// millisecond (see timestampAt).
	ts      time.Time
	tsMs    int64
	topic   string
	records int64 // this client's share; 0 = unlimited
	// sendFor, in a timed run at a fixed rate or stages, is its duration:
	// records due at or after it are not sent (the one due exactly at the
	// end made a run of rate × duration send one record more). dueCap, at a
	// fixed rate, is this client's share of the records due before it
	// (load.DueBefore), so that the clients together send exactly those;
	// -1 with stages.
	sendFor time.Duration
	dueCap  int64
	// pauses watches kbench's own pauses; shift is how long they have
	// lasted so far: a fixed-rate schedule moves on by it, so records due
	// while kbench did not run are not sent in a burst afterwards, nor
	// counted as the cluster's latency. A timed run leaves the last ones
	// unsent (NotSent). Send goroutine.
	pauses *measure.PauseWatch
	shift  time.Duration
	// index and clients number the records across clients: this client's
	// i-th record is record i*clients+index of the run, so record numbers
	// (--payload-monotonic) are unique and rising per client.
	index, clients int64
	// warm decides, on the acknowledgement timeline, when steady state
	// begins (shared by the run's clients; nil without a warm-up).
	warm   *warmup
	closed bool // the closed model: virtual users
	vus    int  // this client's share of them (of the most a ramp has)
	ramp   *load.VURamp
	pacer  load.Pacer
	values payload.Source
	render payload.Renderer // values when rendered per record (a template): into the slabs, at the record's clock reading
	keys   *payload.Keys
	tx     txn // transactions: when to commit, what commits took
	// committing is the records of the transaction being committed (0:
	// none): once flushed they are no longer buffered, and a commit that
	// waits on the cluster is a stall all the same (the reporter's).
	committing atomic.Int64
	onError    func(string, error)
	stamp      bool
	headers    []kgo.RecordHeader
	stamper    engine.SentStamper
	tracker    RecordTracker // nil unless the spec has a Tracker
	// visible hears each commit's offsets (engine.TxSpans), with ProducerSpec.Visible.
	visible *engine.CommitClock
	txSpans *engine.TxSpans
	balance *load.Balance // told what was acknowledged; nil unless the spec has one
	// end is the client's deadline once sending stops (producer_end.go):
	// records are produced with its context. closer closes the client
	// once.
	end    *ending
	closer closer

	window       measure.Window   // all records
	steadyWindow measure.Window   // steady-state records only
	produced     int64            // send goroutine: records handed to franz-go
	conn         engine.ConnWatch // the last failed connection, for stall messages
	progress     *atomic.Int64
	recordParts  recordParts // key and header templates
	// sendEnd is when sending stopped, since the start; behindEnd how far
	// the sender then trailed its schedule (fixed rates). Send goroutine,
	// read once it has returned.
	sendEnd, behindEnd time.Duration
	// promiseFn is c.promise, made once: a method value passed per record
	// would be allocated per record.
	promiseFn func(*kgo.Record, error)
	// Send goroutine: how it kept up. behindMax is the most a record was
	// sent after its intended time; bufferFull the time Produce waited for
	// room in the client's buffer (the cluster pushing back).
	behindMax, bufferFull      time.Duration
	maxBufRecords, maxBufBytes int64
	// sentBytes is what the send goroutine has handed to franz-go (keys,
	// values and headers, as franz-go counts its buffer), largest the
	// largest record; seenDone and seenDoneBytes are the completions it
	// last looked at (see mayBeFull).
	sentBytes, largest, seenDone, seenDoneBytes int64
	// drainMax bounds every flush and transaction commit: the delivery
	// timeout plus drainMargin, after which franz-go has failed every
	// record it could not deliver.
	drainMax time.Duration
	// gate counts the promises that ran and keeps them off what the run
	// reads once it has given up on them (producer_promises.go).
	gate promiseGate
	// ackedSeen is acked as of the last publish, for the stall watch.
	ackedSeen atomic.Int64
	// doneBytes is published from the promise worker's completedBytes at
	// each publish: a lagging, never over-counting view for mayBeFull.
	doneBytes atomic.Int64
	// firstSend is when the first record was handed to franz-go (Unix
	// nanoseconds; virtual users race for it), firstAck when the first was
	// acknowledged (promise worker): start-up time, as the soak script
	// measures it from outside.
	firstSend atomic.Int64
	firstAck  int64

	// promise worker
	pending       measure.WindowStats // not yet published to window
	pendingLats   []int64             // latencies in pending, for ivHist and hists
	pendingSteady []int64             // the steady ones among them, for hists
	ivHist        *measure.IntervalHistogram
	pubHist       *engine.IntervalHist // the workload's, for LatencyHistogram
	hists         *runHists            // the run's, shared by its clients
	steadyPending measure.WindowStats
	published     time.Duration // when pending was last published, since start
	// delays measure the send delays (producer_delay.go); nil at an
	// unlimited rate.
	delays         *sendDelays
	acked          int64
	bytes          int64
	completedBytes int64 // userSize of every completed record, failed ones too
	failed         int64
	steadyAcked    int64
	steadyBytes    int64
	// steadyFirstDue and steadyLastDue are the earliest and latest
	// intended sends of the steady records (-1: none), steadyLastSeq the
	// latest one's number, whose send interval the steady window reaches
	// (sendIntervalEnd, warmup.steadyWindow).
	steadyFirstDue, steadyLastDue time.Duration
	steadyLastSeq                 int64
	lastAck                       time.Duration // when the last record was acknowledged, since the start
	// unresolved counts records cancelled with their outcome unknown (the
	// run was interrupted or ended before they were acknowledged);
	// unresolvedWait is the longest any of them had waited.
	unresolved     int64
	unresolvedWait time.Duration
	errs           measure.ErrorCounts
	seenErr        map[string]bool
	plateaus       *plateaus // a ramp of virtual users: per plateau (nil otherwise)
}

func newProducerClient(spec ProducerSpec, i int) (*producerClient, error) {
	c := &producerClient{
		topic:       spec.Topic,
		records:     engine.EvenPart(spec.Records, spec.Clients, i),
		index:       int64(i),
		clients:     int64(spec.Clients),
		closed:      spec.VUs > 0 || spec.VURamp != nil,
		progress:    spec.Progress,
		vus:         int(engine.EvenPart(int64(spec.users()), spec.Clients, i)),
		ramp:        spec.VURamp,
		plateaus:    newPlateaus(spec.VURamp),
		values:      spec.Values.Clone(uint64(i) + 1),
		tx:          newTxn(spec.TransactionDuration, spec.TransactionRecords).aborting(spec.TransactionAbortRatio, spec.TransactionSeed, i),
		onError:     spec.OnError,
		stamp:       spec.StampSent,
		end:         newEnding(),
		headers:     spec.Headers[:len(spec.Headers):len(spec.Headers)], // an append copies
		pendingLats: make([]int64, 0, publishEvery),
		seenErr:     map[string]bool{},
	}
	c.steadyFirstDue = -1 // none yet
	c.render, _ = c.values.(payload.Renderer)
	if spec.Keys != nil {
		c.keys = spec.Keys.Clone(uint64(i) + 1)
	}
	c.recordParts = newRecordParts(spec, uint64(i)+1)
	if spec.Tracker != nil {
		c.tracker = spec.Tracker(i)
	}
	cl, err := engine.NewClient(spec.ClientOpts(i), kgo.WithHooks(&c.conn))
	if err != nil {
		return nil, fmt.Errorf("producer client %d: %w", i, err)
	}
	c.cl = cl
	c.promiseFn = c.promise
	if err := c.schedule(spec, i); err != nil {
		cl.Close()
		return nil, err
	}
	if v, ok := cl.OptValue(kgo.MaxBufferedRecords).(int64); ok {
		c.maxBufRecords = v
	}
	if v, ok := cl.OptValue(kgo.MaxBufferedBytes).(int64); ok {
		c.maxBufBytes = v
	}
	if id, _ := cl.OptValue(kgo.TransactionalID).(string); id != "" && !c.tx.on() {
		// Transactional records outside a transaction would all fail.
		c.tx = newTxn(DefaultTransactionDuration, 0).aborting(spec.TransactionAbortRatio, spec.TransactionSeed, i)
	}
	if spec.Visible != nil && c.tx.on() {
		c.visible, c.txSpans = spec.Visible, &engine.TxSpans{}
	}
	c.drainMax = defaultDrain
	if v, ok := cl.OptValue(kgo.RecordDeliveryTimeout).(time.Duration); ok && v > 0 {
		c.drainMax = v + drainMargin
	}
	return c, nil
}

// schedule sets client i's pacer, its share of the rate or stages, and
// in a timed run the records due before the end (sendFor, dueCap).
func (c *producerClient) schedule(spec ProducerSpec, i int) error {
	c.pacer = load.NewPacer(spec.Rate / float64(spec.Clients))
	if len(spec.Stages) > 0 {
		share := make([]load.Stage, len(spec.Stages))
		for k, st := range spec.Stages {
			share[k] = load.Stage{Duration: st.Duration, Rate: st.Rate / float64(spec.Clients)}
		}
		var err error
		if c.pacer, err = load.NewStagedPacer(share); err != nil {
			return fmt.Errorf("producer: %w", err)
		}
	}
	c.dueCap = -1
	if spec.Duration > 0 && !c.pacer.Unlimited() && !c.closed {
		c.sendFor = spec.Duration
		if len(spec.Stages) == 0 {
			c.dueCap = engine.EvenPart(load.DueBefore(spec.Rate, spec.Duration), spec.Clients, i)
		}
	}
	return nil
}

// run sends this client's records until its share is done or sendCtx
// ends, then waits for the outstanding ones until the client's deadline
// (producer_end.go). ctx is the run's: sending stops with it.
func (c *producerClient) run(ctx, sendCtx context.Context) error {
	sendErr := c.send(ctx, sendCtx)
	c.gate.sent(c.produced)
	c.sendEnd = time.Since(c.start)
	if !c.pacer.Unlimited() && !c.closed {
		c.behindEnd = max(c.sendEnd-c.shift-c.pacer.Due(c.produced), 0)
	}
	switch {
	case sendErr != nil:
		// A commit or a transaction's start failed: the cluster did not
		// answer within the commit's bound; waiting again would double it.
		c.end.now()
		return sendErr
	case sendCtx.Err() == nil:
		// Every record sent: each is answered within the delivery timeout.
		c.end.arm(c.drainMax)
	}
	// Otherwise the end of Duration, Until or ctx armed the deadline
	// (watchEnds). At the deadline Flush returns and the records still
	// outstanding are cancelled: they count as unresolved, not as an error
	// of the run.
	flushed := c.cl.Flush(c.end.ctx) == nil
	if c.tx.open() {
		if !flushed {
			c.tx.failed++ // records outstanding: a commit would fail them
			c.txEnded(TransactionFailed)
			return nil
		}
		if err := c.commit(c.end.ctx); err != nil {
			return err
		}
	}
	return nil
}

// Drain bounds: past the delivery timeout franz-go has failed every record
// it could not deliver; drainMargin covers the last request in flight.
const (
	drainMargin  = 5 * time.Second
	defaultDrain = 2*time.Minute + drainMargin
)

func (c *producerClient) send(ctx, sendCtx context.Context) error {
	if c.closed {
		c.sendVUs(ctx, sendCtx, c.vus)
		return nil
	}
	intended := !c.pacer.Unlimited()
	for i := int64(0); c.records == 0 || i < c.records; i++ {
		// Checking every record costs little next to Produce, and a timed run
		// must stop on time even when each record blocks.
		if sendCtx.Err() != nil {
			return nil
		}
		if intended && !c.waitDue(sendCtx, i) {
			return nil
		}
		if c.tx.on() && !c.tx.open() {
			if err := c.begin(i); err != nil {
				return err
			}
		}
		r := c.prepare(i, intended)
		if i == 0 {
			c.firstSend.CompareAndSwap(0, time.Now().UnixNano())
		}
		c.produced++
		c.produce(r)
		if c.tx.on() && c.tx.due() {
			// A dead broker must not hold the commit forever: it has the
			// drain bound, and the client's deadline once sending stops.
			cctx, cancel := context.WithTimeout(c.end.ctx, c.drainMax)
			err := c.commit(cctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				return err
			}
			// Interrupted, a commit cut off is counted, not an error.
		}
	}
	return nil
}

// prepare fills record i: all of kbench's per-record work before Produce
// (BenchmarkRecordOverhead measures it together with promise).
func (c *producerClient) prepare(i int64, intended bool) *kgo.Record {
	sl := c.slabs.take()
	// Latency counts from the earlier of the intended and the actual send
	// time: a late record owns its delay (no coordinated omission), and one
	// sent early within the pacer's burst is not credited for it. One
	// monotonic clock read; the record's Kafka timestamp, and a template's
	// now, derive from it.
	sent := time.Since(c.start)
	var value []byte
	if c.render != nil {
		value = c.slabs.render(c.render, i*c.clients+c.index, time.Unix(0, c.startNs+int64(sent)))
	} else {
		value = c.values.Value(i*c.clients + c.index)
	}
	sl.rec = kgo.Record{Topic: c.topic, Value: value, Headers: c.headers}
	r := &sl.rec
	if c.keys != nil {
		r.Key = c.keys.Key()
	}
	c.recordParts.fill(r, i*c.clients+c.index)
	sl.done = nil
	sl.sent = sent
	sl.late = 0
	if intended {
		due := c.pacer.Due(i) + c.shift
		late := sl.sent - due
		if late > c.behindMax {
			c.behindMax = late
		}
		sl.late = late // negative when sent early: the promise recovers due from it
		sl.sent = min(sl.sent, due)
	}
	if c.stamp {
		r.Timestamp = c.start.Add(sl.sent) // the stamp keeps nanoseconds
		c.stamper.Stamp(r, r.Timestamp)
	} else {
		r.Timestamp = c.timestampAt(sl.sent)
	}
	sl.seq = i
	if c.tracker != nil {
		c.tracker.Stamp(r, i)
	}
	return r
}

// timestampAt is the Kafka timestamp of a record sent at sent: Kafka keeps
// milliseconds, so one time.Time per millisecond serves every record in
// it (time.Time.Add per record was 3% of the producer's CPU at 10 B).
func (c *producerClient) timestampAt(sent time.Duration) time.Time {
	if ms := (c.startNs + int64(sent)) / 1e6; ms != c.tsMs {
		c.tsMs, c.ts = ms, time.UnixMilli(ms)
	}
	return c.ts
}

// produce hands r to franz-go, timing the call when the client's buffer is
// full: then Produce blocks until the cluster acknowledges enough to make
// room, and that wait says the cluster, not kbench, set the pace.
//
// Records are produced with the client's deadline context: the end of a
// timed run leaves them to complete, the deadline cancels them.
func (c *producerClient) produce(r *kgo.Record) {
	size := userSize(r)
	c.sentBytes += size
	c.largest = max(c.largest, size)
	if c.tx.on() {
		c.tx.count++
	}
	if c.mayBeFull() && c.full(size) {
		t0 := time.Now()
		c.cl.Produce(c.end.ctx, r, c.promiseFn)
		c.bufferFull += time.Since(t0)
		return
	}
	c.cl.Produce(c.end.ctx, r, c.promiseFn)
}

// mayBeFull is false when the client's buffer cannot be full: what was
// sent less what had completed when last looked is at least what franz-go
// holds (completions only grow), and it is under both limits. franz-go
// takes a record off its count just after the record's promise returns,
// so one completed record (at most largest bytes) may still be counted
// there. franz-go's counts take its producer's lock, which its send and
// promise paths contend for: asking it for every record cost more than
// kbench's whole latency bookkeeping. Completions are looked at every 64
// records.
func (c *producerClient) mayBeFull() bool {
	if c.produced&63 == 0 {
		c.seenDone, c.seenDoneBytes = c.gate.completed(), c.doneBytes.Load()
	}
	return (c.maxBufRecords > 0 && c.produced-c.seenDone+1 >= c.maxBufRecords) ||
		(c.maxBufBytes > 0 && c.sentBytes-c.seenDoneBytes+c.largest > c.maxBufBytes)
}

// userSize is what a record takes of franz-go's buffer: its key, value and
// headers' keys and values.
func userSize(r *kgo.Record) int64 {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return int64(n)
}

// full asks franz-go whether adding a record of size bytes must wait for
// room.
func (c *producerClient) full(size int64) bool {
	return (c.maxBufRecords > 0 && c.cl.BufferedProduceRecords() >= c.maxBufRecords) ||
		(c.maxBufBytes > 0 && c.cl.BufferedProduceBytes()+size > c.maxBufBytes)
}

// Publishing bounds: the promise worker adds to the shared windows once per
// publishEvery records, or after publishAfter for slow runs, instead of four
// locked instructions per record.
const (
	publishEvery = 64
	publishAfter = 10 * time.Millisecond
)

// promise completes one record; franz-go calls it serially per client.
// Past the gate it counts the record, unless the run has given up on the
// client and read its results (abandon).
func (c *producerClient) promise(r *kgo.Record, err error) {
	sl := slotOf(r)
	done := sl.done // read first: complete may hand the slot on
	entered := c.gate.enter()
	if entered {
		c.complete(r, sl, err)
	}
	if done != nil {
		done <- struct{}{} // a virtual user waits for it
	}
	c.gate.leave(entered) // last: waitPromises relies on it
}

// complete counts one record's outcome: the promise worker's own fields.
func (c *producerClient) complete(r *kgo.Record, sl *slot, err error) {
	if c.tracker != nil {
		c.tracker.Done(r, sl.seq, err)
	}
	if c.txSpans != nil && err == nil {
		c.txSpans.Add(r)
	}
	c.completedBytes += userSize(r)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.DeadlineExceeded) || c.end.ctx.Err() != nil {
			// Cancelled, not refused: the broker may have it. franz-go may
			// give the last connection error for a record the run's
			// deadline cut off, so past it every failure counts here. Its
			// wait so far still says how long the cluster had left it
			// unanswered.
			c.unresolved++
			c.unresolvedWait = max(c.unresolvedWait, time.Since(c.start)-sl.sent)
		}
		c.failed++
		if c.warm != nil {
			c.warm.steady(time.Since(c.start), sl.due()) // a failed record completes the warm-up too
		}
		kind := engine.ErrorKind(err)
		c.errs.Add(kind)
		if !c.seenErr[kind] {
			c.seenErr[kind] = true
			if c.onError != nil {
				c.onError(kind, err)
			}
		}
		c.slabs.release(sl)
		return
	}
	if c.firstAck == 0 {
		c.firstAck = time.Now().UnixNano()
	}
	now := time.Since(c.start)
	c.lastAck = now
	lat := (now - sl.sent).Microseconds()
	size := len(r.Value)
	addRecord(&c.pending, size, lat)
	c.pendingLats = append(c.pendingLats, lat)
	c.acked++
	c.bytes += int64(size)
	if c.plateaus != nil {
		c.plateaus.add(sl.sent, size, lat)
	}
	steady := c.warm != nil && c.warm.steady(now, sl.due())
	if steady {
		due := sl.due()
		if c.steadyFirstDue < 0 || due < c.steadyFirstDue {
			c.steadyFirstDue = due
		}
		if due >= c.steadyLastDue {
			c.steadyLastDue, c.steadyLastSeq = due, sl.seq
		}
		c.pendingSteady = append(c.pendingSteady, lat)
		addRecord(&c.steadyPending, size, lat)
		c.steadyAcked++
		c.steadyBytes += int64(size)
	}
	if c.delays != nil {
		c.delays.add(max(sl.late, 0), lat, steady)
	}
	if c.pending.Count >= publishEvery || now-c.published >= publishAfter {
		c.publish(now)
	}
	c.slabs.release(sl)
}

func addRecord(s *measure.WindowStats, size int, lat int64) {
	s.Count++
	s.Bytes += int64(size)
	s.LatSumUs += lat
	s.LatMaxUs = max(s.LatMaxUs, lat)
	s.LatCount++
}

// publish adds what completed since the last publish to the windows the
// reporter reads. Only the promise worker calls it, or the run once every
// promise has completed (waitPromises).
func (c *producerClient) publish(now time.Duration) {
	if c.progress != nil {
		c.progress.Add(c.pending.Bytes)
	}
	c.window.AddStats(c.pending)
	c.ackedSeen.Add(c.pending.Count)
	c.steadyWindow.AddStats(c.steadyPending)
	if c.balance != nil {
		c.balance.Published(c.pending.Count)
	}
	if c.ivHist != nil {
		c.ivHist.RecordAll(c.pendingLats)
		c.pubHist.RecordAll(c.pendingLats)
	}
	c.flushHists()
	if c.delays != nil {
		c.delays.publish()
	}
	c.pendingLats, c.pendingSteady = c.pendingLats[:0], c.pendingSteady[:0]
	c.pending, c.steadyPending = measure.WindowStats{}, measure.WindowStats{}
	c.published = now
	c.doneBytes.Store(c.completedBytes)
}
