package consume

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/workload/engine"
)

// ConsumerSpec describes a consumer workload: Clients consumers in a group
// (or with the partitions assigned directly), stopping after Records, after
// Duration, or when no record arrives for IdleTimeout, whichever is first.
type ConsumerSpec struct {
	// Topics to consume; or Regex, matched against every topic name.
	Topics []string
	Regex  *regexp.Regexp
	// Group is the consumer group. "" assigns the partitions directly,
	// split between the clients: no rebalances and no commits.
	Group string
	// Processing, if set, is each record's processing time (a slow
	// consumer): the poll loop sleeps it for every record it takes,
	// before its next poll.
	Processing func(*rand.Rand) time.Duration
	// Seed is where the clients' random draws come from (processing
	// times, a Membership's members' own draws): client i (of all
	// a distributed workload's, Slice) draws from payload.Mix(Seed, i+1).
	// A plan's run gives each workload its own from the run's seed and
	// each repeat another (study's reseeded), so runs differ unless the
	// plan sets a seed. Every client drew from its index + 1 alone: every
	// run drew the same sequence.
	Seed uint64
	// IntervalHistograms keeps each interval's end-to-end latencies as a
	// 3-digit histogram too (ConsumerInterval.Histogram; with Latency), for
	// OMB's quantiles. Every run with Latency keeps ConsumerInterval.Series.
	IntervalHistograms bool
	// Balance, when set, is told how many records the consumers read
	// (OMB's balanced-rate search; see ProducerSpec.Balance).
	Balance *load.Balance
	// Latest starts directly assigned partitions at their end instead of
	// their start. In a group the client options decide
	// (auto.offset.reset through kafkaconf).
	Latest bool
	// Clients is the number of consumer clients, each with its own
	// connections and goroutine (default 1).
	Clients int
	// Slice places these clients among a distributed workload's (a
	// worker's share): directly assigned partitions are dealt among all
	// of them. Zero: these are all.
	Slice engine.ClientSlice
	// Records stops the run once this many records were consumed in total;
	// 0 means no limit. The run counts exactly this many, even when the
	// last poll returned more.
	Records int64
	// Duration stops the run after this long; 0 means no limit.
	Duration time.Duration
	// IdleTimeout stops the run when no record arrived for this long, the
	// start included, as the Apache tool's --timeout; 0 means no limit.
	// With IdleFromStarted it counts only from ConsumerRun.Started (the
	// scenario's start), so a group's wait for its assignment does not
	// count.
	IdleTimeout     time.Duration
	IdleFromStarted bool
	// ClientOpts returns the franz-go client and consumer options of client
	// i (0-based), without topics or group: RunConsumer adds those. Client
	// 0's options also serve the admin requests (topic checks and lag).
	ClientOpts func(i int) []kgo.Opt
	// MaxPollRecords bounds each poll (Java's max.poll.records); 0 takes
	// whatever is buffered.
	MaxPollRecords int
	// Latency records each record's end-to-end latency: from its
	// SentHeader when present, else from its timestamp, to the poll that
	// returned it.
	Latency bool
	// Lag samples the consumer lag (end offsets minus consumed positions)
	// once per Interval, off the poll loops.
	Lag bool
	// Hooks, if set, returns franz-go hooks for consumer client i only
	// (not for the admin requests), such as a ConsumerMetrics collector.
	Hooks func(i int) []kgo.Hook
	// Interval is the reporting interval (default 5s).
	Interval time.Duration
	// Epoch, if set, aligns the intervals on the scenario's clock, as
	// ProducerSpec.Epoch does.
	Epoch time.Time
	// OnInterval, if set, is called on the reporter goroutine after each
	// interval in which records arrived; an interval without records is
	// merged into the next, as the Apache tool does.
	OnInterval func(measure.ConsumerInterval)
	// OnLag, if set, is called with each lag sample (Lag), off the poll
	// loops.
	OnLag func(measure.LagSample)
	// OnError, if set, is called the first time each kind of fetch error is
	// seen; later errors of that kind are only counted.
	OnError func(kind string, err error)
	// Decode, if set, returns client i's decoder of record values (a
	// schema registry's framing and format): each record read is decoded,
	// and those that fail are counted (ConsumerResult.DecodeFailures).
	// One decoder per client: its cache needs no lock.
	Decode func(i int) func(value []byte) error
	// Visible, if set, times each transactional record's commit-to-visible
	// delay against the commits its transactional producers put on the
	// clock (a read_committed reader in the producers' process):
	// ConsumerResult.Sections[VisibleSectionName].
	Visible *engine.CommitClock
	// Observe, if set, returns client i's observer of the records it
	// reads: called once per partition's records of each poll (not per
	// record, so an observer shared by the clients locks once per batch),
	// with when the poll returned (Unix ns). The records are franz-go's
	// and valid only during the call.
	Observe func(i int) func(recs []*kgo.Record, nowNs int64)
}

// StopReason says why a consumer run ended.
type StopReason string

const (
	StopRecords  StopReason = "records"   // the requested number of records was consumed
	StopDuration StopReason = "duration"  // Duration elapsed
	StopIdle     StopReason = "idle"      // nothing arrived for IdleTimeout
	StopStopped  StopReason = "stopped"   // ConsumerRun.Stop was called
	StopCanceled StopReason = "cancelled" // the context was cancelled
	StopFailed   StopReason = "failed"    // a client failed
)

// ConsumerRun is a consumer workload in progress. Wait for its result.
type ConsumerRun struct {
	spec    ConsumerSpec
	clients []*Client
	admin   *kgo.Client
	start   time.Time
	topics  map[string]int // partitions of each topic consumed
	// members, when set, reads as another family's group members
	// (StartWith); nil for a consumer group's or assigned partitions.
	members Membership
	// ivHist holds the current interval's end-to-end latencies, shared by
	// the clients (one batch per poll); the reporter takes it.
	ivHist *engine.IntervalHist

	parent  context.Context // the caller's
	runCtx  context.Context // polls end when it is cancelled
	cancel  context.CancelFunc
	ready   chan struct{}
	waiting atomic.Int32 // clients still without their first assignment

	target   atomic.Int64 // total records to consume; MaxInt64 for no limit
	consumed atomic.Int64 // records claimed by clients, may pass target
	lastRecv atomic.Int64 // UnixNano of the last poll that returned records
	started  atomic.Bool  // Started was called (IdleFromStarted)
	// firstTaken and lastTaken are when (UnixNano) the first and the last
	// poll that returned records the run counts came back; 0: none.
	firstTaken, lastTaken atomic.Int64
	// caughtUp is when (ns since start) a record sent after the start was
	// first read: the backlog was drained. 0: not (yet).
	caughtUp atomic.Int64
	// caughtUpRecords is how many records had been read by then (to the
	// poll that caught up).
	caughtUpRecords atomic.Int64
	endNanos        atomic.Int64 // UnixNano the run ended, set once
	reason          atomic.Value // StopReason

	wg       sync.WaitGroup // client loops
	bgWG     sync.WaitGroup // watchdog, reporter, lag sampler
	errMu    sync.Mutex
	errs     []error
	rep      *consumerReporter
	lag      *LagSampler
	waitOnce sync.Once
	res      *ConsumerResult
	resErr   error
}

// clientSeed is the seed of client i's random draws (Seed).
func (s *ConsumerSpec) clientSeed(i int) uint64 {
	return payload.Mix(s.Seed, uint64(s.Slice.First+i)+1)
}

func (s *ConsumerSpec) withDefaults() (ConsumerSpec, error) {
	sp := *s
	if sp.Clients <= 0 {
		sp.Clients = 1
	}
	if sp.Interval <= 0 {
		sp.Interval = 5 * time.Second
	}
	switch {
	case len(sp.Topics) == 0 && sp.Regex == nil:
		return sp, errors.New("consumer: no topic")
	case len(sp.Topics) > 0 && sp.Regex != nil:
		return sp, errors.New("consumer: both topics and a regex")
	case sp.ClientOpts == nil:
		return sp, errors.New("consumer: no client options")
	case sp.Records < 0:
		return sp, fmt.Errorf("consumer: negative record count %d", sp.Records)
	}
	return sp, nil
}

// RunConsumer runs the workload to its end and returns what it measured.
// It returns a result whenever the clients started, together with an error
// when the run failed or was cancelled, so that callers can report what
// was measured. Ending on IdleTimeout is not an error here: see
// ConsumerResult.Reason.
func RunConsumer(ctx context.Context, s ConsumerSpec) (*ConsumerResult, error) {
	run, err := StartConsumer(ctx, s)
	if err != nil {
		return nil, err
	}
	return run.Wait()
}

// StartConsumer checks that the cluster answers and that the topics exist
// (an error marked with userr when they do not), starts the clients and
// returns while they join their group. Use Ready to wait for their first
// assignment, and Wait for the result.
func StartConsumer(ctx context.Context, s ConsumerSpec) (*ConsumerRun, error) {
	return StartWith(ctx, s, nil)
}

// StartWith starts a run whose clients read as members of another kind
// of group than a consumer group, m saying how (a share group: package
// share); a nil m is StartConsumer. The run's counting, its stop
// conditions, reporter and lag series are the same for every kind.
func StartWith(ctx context.Context, s ConsumerSpec, m Membership) (*ConsumerRun, error) {
	spec, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	adminOpts := append([]kgo.Opt(nil), spec.ClientOpts(0)...)
	if spec.Group != "" && m == nil {
		// The options may hold group-only ones (kgo.DisableAutoCommit for
		// enable.auto.commit=false), which franz-go refuses without a
		// group; this client never joins it (it consumes no topic).
		adminOpts = append(adminOpts, kgo.ConsumerGroup(spec.Group))
	}
	admin, err := kgo.NewClient(adminOpts...)
	if err != nil {
		return nil, fmt.Errorf("consumer: create admin client: %w", err)
	}
	if err := kadmin.Ping(ctx, admin); err != nil {
		admin.Close()
		return nil, err
	}
	adm := kadm.NewClient(admin)
	parts, err := ResolveTopics(ctx, admin, spec)
	if err != nil {
		admin.Close()
		return nil, err
	}
	var starts kadm.ListedOffsets
	if spec.Group == "" && m == nil {
		if starts, err = startOffsets(ctx, adm, parts, spec.Latest); err != nil {
			admin.Close()
			return nil, err
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	r := &ConsumerRun{spec: spec, admin: admin, parent: ctx, runCtx: runCtx, cancel: cancel, ready: make(chan struct{}),
		topics: map[string]int{}, members: m}
	for t, ps := range parts {
		r.topics[t] = len(ps)
	}
	if spec.Latency {
		r.ivHist = engine.NewIntervalHist(spec.IntervalHistograms)
	}
	r.target.Store(math.MaxInt64)
	if spec.Records > 0 {
		r.target.Store(spec.Records)
	}
	r.start = time.Now()
	r.lastRecv.Store(r.start.UnixNano())
	r.waiting.Store(int32(spec.Clients))
	for i := range spec.Clients {
		c, err := newConsumerClient(r, i, parts, starts)
		if err != nil {
			for _, c := range r.clients {
				c.cl.Close()
			}
			cancel()
			admin.Close()
			return nil, err
		}
		r.clients = append(r.clients, c)
	}
	r.launch(parts)
	return r, nil
}

// launch starts the client loops and the background goroutines.
func (r *ConsumerRun) launch(parts map[string][]int32) {
	for _, c := range r.clients {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if err := c.run(r.runCtx); err != nil {
				r.fail(err)
			}
		}()
	}
	r.rep = newConsumerReporter(r)
	r.bgWG.Add(2)
	go func() { defer r.bgWG.Done(); r.watch() }()
	go func() { defer r.bgWG.Done(); r.rep.run(r.runCtx) }()
	if r.spec.Lag {
		r.lag = newLagSampler(r, parts)
		r.bgWG.Add(1)
		go func() { defer r.bgWG.Done(); r.lag.run(r.runCtx) }()
	}
}

// Done is closed once the run has ended: its stop condition, a failure,
// Stop, or the caller's context.
func (r *ConsumerRun) Done() <-chan struct{} { return r.runCtx.Done() }

// Ready is closed once every client has its first assignment: at once
// for directly assigned partitions.
func (r *ConsumerRun) Ready() <-chan struct{} { return r.ready }

// Started notes that the scenario starts now (its writers begin): the
// idle timeout counts from here. Readers prepared earlier waited for their
// group's assignment, which may take a rebalance or a dead member's
// session timeout (a distributed run's lost worker); stopped as idle
// before anything was written, they read nothing.
func (r *ConsumerRun) Started() {
	defer r.started.Store(true)
	now := time.Now().UnixNano()
	for {
		last := r.lastRecv.Load()
		if now <= last || r.lastRecv.CompareAndSwap(last, now) {
			return
		}
	}
}

// Assigned reports whether every client had its first assignment.
func (r *ConsumerRun) Assigned() bool {
	select {
	case <-r.ready:
		return true
	default:
		return false
	}
}

// assigned notes that one more client has its first assignment.
func (r *ConsumerRun) assigned() {
	if r.waiting.Add(-1) == 0 {
		close(r.ready)
	}
}

// Finish sets the number of records, in total since the start, after which
// the run stops: for a consumer running alongside a producer, call it with
// the number of records the producer had acknowledged once it is done.
func (r *ConsumerRun) Finish(total int64) {
	r.target.Store(total)
	if r.consumed.Load() >= total {
		r.stop(StopRecords, time.Now())
	}
}

// Stop ends the run now.
func (r *ConsumerRun) Stop() { r.stop(StopStopped, time.Now()) }

// stop ends the run once, recording when and why.
func (r *ConsumerRun) stop(reason StopReason, at time.Time) {
	if r.endNanos.CompareAndSwap(0, at.UnixNano()) {
		r.reason.Store(reason)
	}
	r.cancel()
}

func (r *ConsumerRun) fail(err error) {
	r.errMu.Lock()
	r.errs = append(r.errs, err)
	r.errMu.Unlock()
	r.stop(StopFailed, time.Now())
}

// claim counts n records just polled and returns how many of them the run
// takes: all of them until the target is reached, then only those up to it.
func (r *ConsumerRun) claim(n int, at time.Time) int {
	after := r.consumed.Add(int64(n))
	target := r.target.Load()
	if after < target {
		return n
	}
	take := max(int64(n)-(after-target), 0)
	r.stop(StopRecords, at)
	return int(take)
}

// taken notes that a poll that returned at `at` gave the run records.
func (r *ConsumerRun) taken(at int64) {
	if r.firstTaken.Load() == 0 {
		r.firstTaken.CompareAndSwap(0, at)
	}
	for {
		last := r.lastTaken.Load()
		if at <= last || r.lastTaken.CompareAndSwap(last, at) {
			return
		}
	}
}

// watch ends the run on Duration or IdleTimeout. Checking every few
// milliseconds from here keeps the poll loops free of timers.
func (r *ConsumerRun) watch() {
	tick := 10 * time.Millisecond
	if r.spec.IdleTimeout > 0 && r.spec.IdleTimeout < 10*tick {
		tick = max(r.spec.IdleTimeout/10, time.Millisecond)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-r.runCtx.Done():
			return
		case now := <-t.C:
			if r.spec.Duration > 0 && now.Sub(r.start) >= r.spec.Duration {
				r.stop(StopDuration, r.start.Add(r.spec.Duration))
				return
			}
			last := time.Unix(0, r.lastRecv.Load())
			idle := r.spec.IdleTimeout > 0 && (!r.spec.IdleFromStarted || r.started.Load())
			if idle && now.Sub(last) > r.spec.IdleTimeout {
				r.stop(StopIdle, now)
				return
			}
		}
	}
}

// interrupted reports whether the caller's context ended the run (Ctrl-C,
// or a runner that found the cluster gone), whoever stopped it first.
func (r *ConsumerRun) interrupted() bool { return r.parent.Err() != nil }

// Wait waits for the run to end and returns what it measured (see
// RunConsumer). It may be called more than once.
func (r *ConsumerRun) Wait() (*ConsumerResult, error) {
	r.waitOnce.Do(func() { r.res, r.resErr = r.wait() })
	return r.res, r.resErr
}

func (r *ConsumerRun) wait() (*ConsumerResult, error) {
	<-r.runCtx.Done()
	if r.endNanos.Load() == 0 {
		r.stop(StopCanceled, time.Now()) // the caller's context ended the run
	}
	r.wg.Wait()
	r.bgWG.Wait()
	// Group state is read before closing, since leaving the group revokes
	// every partition.
	res := r.collect()
	// Closing leaves the group, a request a paused or dead coordinator
	// may hold for minutes: wait at most engine.CloseBound, then let the closes
	// finish in the background. What was measured is already collected.
	closed := make(chan struct{})
	go func() {
		var closeWG sync.WaitGroup
		for _, c := range r.clients {
			closeWG.Add(1)
			go func() { defer closeWG.Done(); c.cl.Close() }()
		}
		closeWG.Wait()
		r.admin.Close()
		close(closed)
	}()
	bound := engine.CloseBound
	if r.interrupted() {
		bound = engine.InterruptCloseBound
	}
	select {
	case <-closed:
	case <-time.After(bound):
	}
	r.errMu.Lock()
	err := errors.Join(r.errs...)
	r.errMu.Unlock()
	if res.Reason == StopCanceled && err == nil {
		err = context.Cause(r.runCtx)
	}
	return res, err
}
