// Package produce is the producer engine: clients that write records at a
// rate, a number of virtual users or as fast as they can, and what they
// measured (StartProducer, RunProducer). Learn ProducerSpec and
// RunProducer first.
//
// Concurrency: each producer client has one goroutine that sends and one
// (franz-go's promise worker) that completes records; the second is the only
// writer of that client's histograms, so the hot path takes no lock and sends
// on no channel. A reporter goroutine reads per-client atomic windows once per
// interval.
package produce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/workload/engine"
)

// ProducerSpec describes a producer workload.
type ProducerSpec struct {
	Topic string
	// Clients is the number of producer clients, each with its own
	// connections and goroutine (default 1). Records, Rate and Warmup are
	// split evenly between them.
	Clients int
	// Records is the total number to send; 0 means until Duration ends or
	// ctx is cancelled.
	Records int64
	// Duration stops sending after this long; 0 means no limit.
	Duration time.Duration
	// Stages, when set, replace Rate with a ramping schedule (totals over
	// the clients); records are due as load.NewStagedPacer says, and the
	// run should last their sum (Duration).
	Stages []load.Stage
	// VUs, when positive, runs the closed model: that many virtual users,
	// split between the clients, each sending a record and waiting for its
	// acknowledgement before the next (Rate is then ignored).
	VUs int
	// VURamp, when set, ramps the virtual users instead (VUs is ignored):
	// as many as it says are active at each moment, split between the
	// clients; the run should last its Duration.
	VURamp *load.VURamp
	// IntervalHistograms keeps each interval's latencies and send delays
	// as 3-digit histograms too (Interval.LatencyHistogram,
	// DelayHistogram; about 1.5 KB each), for OMB's quantiles over its
	// periods. Every run keeps the compact Interval.Series.
	IntervalHistograms bool
	// Balance, when set, replaces Rate with OMB's balanced-rate search
	// (load.Balance, shared by every producer and consumer of the search):
	// each client keeps its share of the Balance's rate as it moves.
	Balance *load.Balance
	// Rate is the total target in records per second; 0 or less is unlimited.
	// At a fixed rate latency is measured from each record's intended send
	// time, so stalls are not hidden (no coordinated omission).
	Rate float64
	// Warmup records (of the total, counted across clients, by
	// completion) are left out of the steady-state stats; so are records
	// completing in the first WarmupDuration. With both, steady state
	// begins when both are past (see warmup).
	Warmup         int64
	WarmupDuration time.Duration
	// Values gives record values; each client gets a Clone.
	Values payload.Source
	// Headers are sent with every record (shared, never modified).
	Headers []kgo.RecordHeader
	// KeySource, if set, renders each record's key (a template); it
	// takes precedence over Keys.
	KeySource payload.Source
	// Progress, if set, is added the value bytes of acknowledged records
	// as they complete (in steps of at most 64 records or 10 ms), so that
	// other workloads can wait for a backlog.
	Progress *atomic.Int64
	// HeaderSources render headers per record (templates), after Headers.
	HeaderSources []HeaderSource
	// Keys gives record keys; nil sends records without keys.
	Keys *payload.Keys
	// ClientOpts returns the franz-go options of client i (0-based).
	ClientOpts func(i int) []kgo.Opt
	// TransactionDuration, when positive, wraps records in transactions
	// committed after this long; TransactionRecords, after that many
	// records of the client; with both, whichever comes first. The client
	// options must set a transactional id, one per client; a client with
	// one and neither setting commits every DefaultTransactionDuration.
	TransactionDuration time.Duration
	TransactionRecords  int64
	// TransactionAbortRatio is the share of transactions aborted on
	// purpose instead of committed (0 to 1), each chosen from
	// TransactionSeed and the client, so a run can be repeated.
	TransactionAbortRatio float64
	TransactionSeed       uint64
	// Interval is the reporting interval (default 5s).
	Interval time.Duration
	// Epoch, if set, aligns the intervals: interval k covers
	// [Epoch + k*Interval, Epoch + (k+1)*Interval), so that every workload
	// of a scenario reports on one clock. Zero: the run's own start.
	Epoch time.Time
	// OnInterval, if set, is called on the reporter goroutine after each
	// interval, and once more for the last partial interval (Final set).
	OnInterval func(measure.Interval)
	// OnSeries, if set, is called on the reporter goroutine with each
	// interval of the series: every record that completed in it, warm-up
	// included, with the failures so far and the latencies counted into
	// LatencyBucketsUs (for live monitoring).
	OnSeries func(measure.Interval)
	// OnStall, if set, is called on the reporter goroutine after each
	// interval in which no record completed while records were
	// outstanding: a dead or stalled broker, said as it happens.
	OnStall func(measure.Stall)
	// OnError, if set, is called (from a promise worker) the first time each
	// kind of error is seen; later errors of that kind are only counted.
	OnError func(kind string, err error)
	// StampSent adds the SentHeader (the send time in nanoseconds) to every
	// record, so a consumer can measure end-to-end latency to the
	// microsecond; record timestamps have only milliseconds.
	StampSent bool
	// Until, if set, ends sending when it is done, as the end of Duration
	// does: records in flight still complete. StartProducer's Stop uses it.
	Until context.Context
	// FlushTimeout bounds the wait for outstanding records after ctx was
	// cancelled (default DefaultInterruptDrain); Drain, after Duration or
	// Until ended sending (default DefaultDrain). An end by Records waits
	// as long as the client's delivery timeout allows. See producer_end.go.
	FlushTimeout time.Duration
	Drain        time.Duration
	// Stall bounds a run of a number of records (Records, no Duration):
	// once no record has been acknowledged for this long while records
	// were outstanding, sending stops, the outstanding records are
	// cancelled (unresolved) and the run returns ErrStalled. Default
	// DefaultStall; callers give the delivery timeout when the user set
	// one. See producer_stall.go.
	Stall time.Duration
	// Abort, if set, ends every wait at once when it is done (a second
	// Ctrl-C): the records still outstanding are unresolved.
	Abort context.Context
	// Tracker, if set, follows every record by client and sequence number
	// (verification and fault measurement): Tracker(i) is client i's, used
	// by its sending goroutines and its promise worker.
	Tracker func(i int) RecordTracker
	// Visible, if set with transactions, is told when each transaction's
	// records were committed, by their offsets: the read_committed readers
	// in this process time their commit-to-visible delay against it.
	Visible *engine.CommitClock
}

// RecordTracker follows one producer client's records: Stamp is called
// before each is produced (it may add a header; virtual users call it
// concurrently), Done once it completed, with the error if it failed. seq
// numbers the client's records from 0.
type RecordTracker interface {
	Stamp(r *kgo.Record, seq int64)
	Done(r *kgo.Record, seq int64, err error)
}

// TransactionTracker is a RecordTracker that also hears how each of its
// client's transactions ended: the records from seq first, n of them.
// Verification judges records of an aborted transaction, or of one whose
// commit failed, apart from committed ones.
type TransactionTracker interface {
	RecordTracker
	TransactionEnded(first, n int64, outcome TransactionOutcome)
}

// TransactionOutcome is how a transaction ended.
type TransactionOutcome int

const (
	TransactionCommitted TransactionOutcome = iota
	TransactionAborted                      // aborted on purpose (TransactionAbortRatio)
	TransactionFailed                       // the commit or abort failed or was cut off: its records' fate is the cluster's
)

// HeaderSource renders one header per record.
type HeaderSource struct {
	Key    string
	Values payload.Source
}

// ProducerResult is what a producer workload measured.
type ProducerResult struct {
	// End is when sending stopped or the last record was acknowledged,
	// whichever is later: the rates divide by End - Start, so the wait
	// for records a dead broker never answers is not counted as sending
	// time.
	Start, End time.Time
	Acked      int64
	Bytes      int64 // acknowledged value bytes
	Failed     int64
	Latency    *measure.Histogram // microseconds
	// SendDelay is, on a schedule (a rate, stages, a balanced rate), how
	// long after its intended send time each acknowledged record was
	// handed to the client, µs: OMB's publish delay. nil at an unlimited
	// rate and with virtual users.
	SendDelay *measure.Histogram
	// LatencyFromIntended is true at a fixed rate, where latency is counted
	// from each record's intended send time. SentLatency is then the same
	// records' latency from their actual send (what the Apache tool's
	// lines mean by latency); nil off a schedule, where Latency is that.
	LatencyFromIntended bool
	SentLatency         *measure.Histogram
	// Steady holds the steady-state stats when Warmup > 0.
	Steady    *SteadyResult
	Errors    map[string]int64
	Intervals []measure.Interval
	Clients   int
	// VUs is the closed model's virtual users (a ramp's peak); 0 for the
	// open model.
	VUs int
	// TargetRate is the spec's rate (0: unlimited). BehindMax is the most
	// a record was sent after its intended time; BufferFull the time the
	// senders waited for room in their clients' buffers, CommitWait the
	// time they spent committing transactions (both the cluster's time,
	// summed over clients). SenderLag is how far behind their schedules
	// the senders were when they stopped, less those waits: the lag that
	// was their own (CPU, generating values), summed over clients.
	TargetRate float64
	// Rates are the rates a balanced-rate search set (ProducerSpec.Balance),
	// over all its producers, the start rate first.
	Rates                 []load.RatePoint
	BehindMax, BufferFull time.Duration
	CommitWait, SenderLag time.Duration
	// Transactions is what the transactions measured (nil without them).
	Transactions *TransactionResult
	// Unresolved counts the failed records that were cancelled rather
	// than refused (the run was interrupted or its drain bound passed):
	// the broker may have them. UnresolvedWait is the longest any had
	// waited when cancelled.
	Unresolved     int64
	UnresolvedWait time.Duration
	// FirstSend is when the first record was handed to the client,
	// FirstAck when the first was acknowledged (zero when none was).
	FirstSend, FirstAck time.Time
	// NotSent counts the records the run intended and never handed to
	// the client: of a number of records, those left when it ended first
	// (its stall bound, Ctrl-C, a failed commit); of a timed run at a fixed
	// rate, those due before its end (load.DueBefore) that were not sent
	// (kbench paused or behind its schedule, Ctrl-C).
	NotSent int64
	// Plateaus are a ramp of virtual users' stretches of a constant count
	// (nil without a ramp).
	Plateaus []PlateauResult
	// Pauses are the stretches in which kbench itself did not run (the
	// process stopped, its host suspended): records due then went out
	// late or, past the duration, not at all (NotSent). The rates leave
	// them out (Sending).
	Pauses []measure.Pause
}

// Sending is the time the rates divide by: from Start to End, less the
// pauses of kbench itself within it.
func (r *ProducerResult) Sending(from time.Time) time.Duration {
	return r.End.Sub(from) - measure.PausedWithin(r.Pauses, from, r.End)
}

// SteadySending is the time steady state's rates divide by: its window
// less the pauses of kbench itself within it.
func (r *ProducerResult) SteadySending() time.Duration {
	return r.Steady.End.Sub(r.Steady.Start) - measure.PausedWithin(r.Pauses, r.Steady.Start, r.Steady.End)
}

// TransactionResult counts a run's transactions; Commit is the commit
// latency (flush and EndTransaction) of those committed, in microseconds.
type TransactionResult struct {
	Committed, Aborted, Failed       int64
	CommittedRecords, AbortedRecords int64
	Commit                           *measure.Histogram
}

// SteadyResult is the part of a run after warmup: the records completing
// after the warm-up's last one (or the warm-up time), over the window from
// Start to End (see warmup.steadyWindow): the warm-up's last send to the
// run's end, or to the end of the last steady record's send interval if
// later. AckLag is how long after Start the warm-up's last record
// completed: the acknowledgements lagged the sends by that much.
type SteadyResult struct {
	Start, End time.Time
	AckLag     time.Duration
	Acked      int64
	Bytes      int64
	Latency    *measure.Histogram
	SendDelay  *measure.Histogram // nil at an unlimited rate
	// SentLatency is Latency from the actual send, on a schedule (nil at
	// an unlimited rate).
	SentLatency *measure.Histogram
}

func (s *ProducerSpec) withDefaults() (ProducerSpec, error) {
	sp := *s
	if sp.Clients <= 0 {
		sp.Clients = 1
	}
	if sp.Interval <= 0 {
		sp.Interval = 5 * time.Second
	}
	if sp.FlushTimeout <= 0 {
		sp.FlushTimeout = DefaultInterruptDrain
	}
	if sp.Drain <= 0 {
		sp.Drain = DefaultDrain
	}
	if sp.Stall <= 0 {
		sp.Stall = DefaultStall
	}
	switch {
	case sp.Topic == "":
		return sp, errors.New("producer: no topic")
	case sp.Values == nil:
		return sp, errors.New("producer: no record values")
	case sp.ClientOpts == nil:
		return sp, errors.New("producer: no client options")
	case sp.Records <= 0 && sp.Duration <= 0:
		// A run with neither bound ends only with ctx; allowed.
	case sp.Records > 0 && sp.Warmup >= sp.Records:
		return sp, fmt.Errorf("producer: warmup %d must be fewer than the %d records", sp.Warmup, sp.Records)
	}
	return sp, nil
}

// RunProducer runs the workload and returns what it measured. It returns a
// result whenever any record was attempted, together with an error when the
// run stopped early (ctx cancelled, clients failed to start) so that callers
// can report what was measured so far.
func RunProducer(ctx context.Context, s ProducerSpec) (*ProducerResult, error) {
	spec, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	clients := make([]*producerClient, spec.Clients)
	warm := newWarmup(spec.Warmup, spec.WarmupDuration)
	for i := range clients {
		c, err := newProducerClient(spec, i)
		if err != nil {
			for _, c := range clients[:i] {
				c.cl.Close()
			}
			return nil, err
		}
		c.warm = warm
		clients[i] = c
	}

	start := time.Now()
	pauses := measure.WatchPauses()
	ivHist := measure.NewIntervalHistogram()
	// Every run keeps each interval's latencies as a series histogram;
	// OMB's also the 3-digit ones, and the send delays.
	pubHist := engine.NewIntervalHist(spec.IntervalHistograms)
	var delayHist *engine.IntervalHist
	if spec.IntervalHistograms {
		delayHist = engine.NewIntervalHist(true)
	}
	delays := false
	for _, c := range clients {
		c.start = start
		c.startNs = start.UnixNano()
		c.ivHist, c.pubHist = ivHist, pubHist
		c.pauses = pauses
		c.onSchedule(spec.Balance, start, delayHist)
		delays = delays || c.delays != nil
	}
	hists := newRunHists(spec.Warmup > 0 || spec.WarmupDuration > 0, delays)
	for _, c := range clients {
		c.hists = hists
	}
	stopBalance := func() {}
	if spec.Balance != nil {
		stopBalance = spec.Balance.Start(start)
	}
	defer stopBalance()
	sendCtx := ctx
	if spec.Duration > 0 {
		var cancel context.CancelFunc
		sendCtx, cancel = context.WithTimeout(ctx, spec.Duration)
		defer cancel()
	}
	if spec.Until != nil {
		var cancel context.CancelFunc
		sendCtx, cancel = context.WithCancel(sendCtx)
		defer cancel()
		defer context.AfterFunc(spec.Until, cancel)()
	}
	var stall *stallWatch
	if spec.Records > 0 && spec.Duration <= 0 {
		var stop context.CancelCauseFunc
		sendCtx, stop = context.WithCancelCause(sendCtx)
		defer stop(nil)
		stall = startStallWatch(spec.Stall, clients, stop)
	}
	stopWatching := watchEnds(ctx, sendCtx, spec.Abort, clients, spec.Drain, spec.FlushTimeout)
	rep := newReporter(spec, clients, start)
	rep.ivHist, rep.pubHist, rep.delayHist = ivHist, pubHist, delayHist
	repDone := make(chan struct{})
	go func() { defer close(repDone); rep.run() }()

	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.run(ctx, sendCtx); err != nil {
				errs[i] = fmt.Errorf("producer client %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	stopBalance() // sending has ended: no more rates to set
	stopWatching()
	if stall != nil {
		if err := stall.close(); err != nil {
			errs = append(errs, err)
		}
	}
	// Every client has flushed, or its deadline passed: close them all at
	// once and give the last promises closeGrace (none after an abort).
	// Close fails what is still buffered, and the run waits for those
	// promises too.
	wait := time.Now().Add(closeGrace)
	if spec.Abort != nil && spec.Abort.Err() != nil {
		wait = time.Now()
	}
	closed := make([]<-chan struct{}, len(clients))
	for i, c := range clients {
		closed[i] = c.closer.close(c.cl)
	}
	for i, c := range clients {
		select {
		case <-closed[i]:
		case <-time.After(time.Until(wait)):
		}
		c.end.stop()
		if !c.waitPromises(wait) {
			// Records whose promise never ran: their outcome is unknown
			// (unresolved, below). The promise worker stops touching what
			// collect reads; the result keeps everything else.
			c.abandon()
			c.flushHists() // what it completed since its last publish
			continue
		}
		c.publish(time.Since(start))
	}
	rep.stop()
	<-repDone

	res := collect(spec, clients, start, rep.intervals, pauses.Stop())
	for _, c := range clients {
		if c.gate.abandoned() {
			// Promises that ran after abandon counted nothing.
			n := c.produced - c.acked - c.failed
			res.Unresolved += n
			res.Failed += n
			if n > 0 {
				res.Errors["CANCELLED"] += n
			}
		}
	}
	runErr := errors.Join(errs...)
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	return res, runErr
}

func collect(spec ProducerSpec, clients []*producerClient, start time.Time, intervals []measure.Interval, pauses []measure.Pause) *ProducerResult {
	var end time.Duration
	for _, c := range clients {
		end = max(end, c.sendEnd, c.lastAck)
	}
	res := &ProducerResult{
		Start:               start,
		End:                 start.Add(end),
		Latency:             measure.NewHistogram(),
		LatencyFromIntended: spec.Rate > 0 || len(spec.Stages) > 0 || spec.Balance != nil,
		Errors:              map[string]int64{},
		Intervals:           intervals,
		Clients:             len(clients),
		VUs:                 spec.users(),
		Pauses:              pauses,
	}
	res.TargetRate = max(spec.Rate, 0)
	if spec.Balance != nil {
		res.Rates = spec.Balance.Rates()
	}
	if spec.Warmup > 0 || spec.WarmupDuration > 0 {
		res.Steady = &SteadyResult{Latency: measure.NewHistogram()}
	}
	if clients[0].tx.on() {
		res.Transactions = &TransactionResult{Commit: measure.NewHistogram()}
	}
	for _, c := range clients {
		res.Acked += c.acked
		res.Bytes += c.bytes
		res.Failed += c.failed
		res.BehindMax = max(res.BehindMax, c.behindMax)
		res.Unresolved += c.unresolved
		res.UnresolvedWait = max(res.UnresolvedWait, c.unresolvedWait)
		res.BufferFull += c.bufferFull
		res.CommitWait += c.tx.wait
		res.SenderLag += max(c.behindEnd-c.bufferFull-c.tx.wait, 0)
		if t := res.Transactions; t != nil {
			t.Committed += c.tx.committed
			t.Aborted += c.tx.aborted
			t.Failed += c.tx.failed
			t.CommittedRecords += c.tx.committedRecords
			t.AbortedRecords += c.tx.abortedRecords
			t.Commit.Merge(c.tx.commits)
		}
		if res.Steady != nil {
			res.Steady.Acked += c.steadyAcked
			res.Steady.Bytes += c.steadyBytes
		}
		for k, v := range c.errs.Snapshot() {
			res.Errors[k] += v
		}
		res.FirstSend = earliest(res.FirstSend, c.firstSend.Load())
		res.FirstAck = earliest(res.FirstAck, c.firstAck)
		switch {
		case c.records > 0 && c.dueCap >= 0:
			res.NotSent += max(min(c.records, c.dueCap)-c.produced, 0)
		case c.records > 0:
			res.NotSent += max(c.records-c.produced, 0)
		case c.dueCap >= 0:
			res.NotSent += max(c.dueCap-c.produced, 0)
		}
	}
	if h := clients[0].hists; h != nil { // shared by the clients
		res.Latency.Merge(h.lat)
		mergeDelays(&res.SendDelay, h.delay)
		mergeDelays(&res.SentLatency, h.sent)
		if res.Steady != nil {
			res.Steady.Latency.Merge(h.steady)
			mergeDelays(&res.Steady.SendDelay, h.steadyDelay)
			mergeDelays(&res.Steady.SentLatency, h.steadySent)
		}
	}
	res.Plateaus = mergePlateaus(clients)
	// Steady state is reported once a steady record was acknowledged.
	if at, ok := clients[0].warm.at(end); ok && res.Steady.Acked > 0 {
		first, last := time.Duration(-1), time.Duration(0)
		for _, c := range clients {
			if c.steadyFirstDue >= 0 && (first < 0 || c.steadyFirstDue < first) {
				first = c.steadyFirstDue
			}
			if c.steadyFirstDue >= 0 {
				last = max(last, c.sendIntervalEnd(c.steadyLastSeq, c.steadyLastDue))
			}
		}
		from, to, lag := clients[0].warm.steadyWindow(at, end, first, last)
		res.Steady.Start, res.Steady.End, res.Steady.AckLag = start.Add(from), start.Add(to), lag
		// The series marks steady the intervals ending after the window's
		// start, as the report shades the warm-up up to it; the reporter
		// marked them live from when steady state was known.
		for i := range res.Intervals {
			res.Intervals[i].Steady = res.Intervals[i].Elapsed >= from
		}
	}
	return res
}

// earliest is the earlier of t and the Unix time ns (0: none).
func earliest(t time.Time, ns int64) time.Time {
	if ns == 0 {
		return t
	}
	u := time.Unix(0, ns)
	if t.IsZero() || u.Before(t) {
		return u
	}
	return t
}
