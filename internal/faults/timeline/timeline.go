package timeline

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/faults"
)

// Config is a timeline to run.
type Config struct {
	Faults []faults.Fault
	Actor  faults.Actor
	// Kinds are the fault kinds by action name (default faults.Kinds()).
	Kinds map[string]faults.Kind
	// Admin are the client options for metadata (bootstrap, security).
	Admin []kgo.Opt
	// Topics are the scenario's topics: their partitions are watched.
	Topics []string
	// Poll is the metadata polling interval (default 50 ms); MeasureFor
	// bounds each measurement (default DefaultMeasureFor).
	Poll, MeasureFor time.Duration
	// Settle is how long an election measurement still watches after its
	// paused broker was resumed, for a fencing already under way (default
	// DefaultSettle); a broker resumed before its session expired keeps
	// its partitions.
	Settle time.Duration
	// Logf, if set, is told of each action as it happens.
	Logf func(format string, args ...any)

	// view, if set, replaces the client made from Admin (tests).
	view view
}

// Defaults of Config.
const (
	DefaultMeasureFor = 2 * time.Minute
	// DefaultSettle is more than twice Kafka's broker heartbeat interval
	// (2 s), so a resumed broker has been heard from by the controller.
	DefaultSettle = 5 * time.Second
)

// Timeline runs a fault plan against a scenario: each fault at its own
// time (one that follows another, its delay after that one was done),
// whatever earlier faults are still doing or measuring.
type Timeline struct {
	cfg   Config
	start time.Time
	view  view
	stop  chan struct{} // closed by End: faults not yet due will not happen
	done  chan struct{} // closed once every fault has its final status
	ended sync.Once

	mu       sync.Mutex
	endAt    time.Duration
	results  []Result
	finished []chan struct{}                             // by fault: closed once it has its final status
	doneAt   []time.Duration                             // by fault: when its action was done
	heals    []func(ctx context.Context) (string, error) // by fault: Done.Heal, run by End
	busy     map[int32]int                               // broker → the fault whose action runs on it
	down     map[int32]bool                              // brokers a fault took away and none brought back
	// elections are the election measurements still running, by broker.
	elections map[int32]*election
	// healed are closed when a network fault's link is healed, by fault:
	// its ISR shrink watch ends there (a later fault's shrink is not its).
	healed   map[int]chan struct{}
	measures sync.WaitGroup
	// measuring names the measurements under way, by a number of their
	// own (guarded by mu): what Finish says it waits for.
	measuring map[int]string
	measureID int
	// known are the brokers the cluster had when the timeline began (the
	// ones its metadata listed or its partitions' replicas named); nil
	// when it did not say: a {broker: N} outside them is refused.
	known   map[int32]bool
	mctx    context.Context
	mcancel context.CancelFunc
}

// Start begins the timeline; start is the scenario's time zero.
func Start(ctx context.Context, cfg Config, start time.Time) (*Timeline, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = 50 * time.Millisecond
	}
	if cfg.MeasureFor <= 0 {
		cfg.MeasureFor = DefaultMeasureFor
	}
	if cfg.Settle <= 0 {
		cfg.Settle = DefaultSettle
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Kinds == nil {
		cfg.Kinds = faults.Kinds()
	}
	v := cfg.view
	if v == nil {
		cv, err := newClientView(cfg.Admin)
		if err != nil {
			return nil, err
		}
		v = cv
	}
	n := len(cfg.Faults)
	t := &Timeline{cfg: cfg, start: start, view: v, stop: make(chan struct{}), done: make(chan struct{}),
		results: make([]Result, n), finished: make([]chan struct{}, n), doneAt: make([]time.Duration, n),
		heals: make([]func(context.Context) (string, error), n),
		busy:  map[int32]int{}, down: map[int32]bool{}, elections: map[int32]*election{}, healed: map[int]chan struct{}{}}
	t.mctx, t.mcancel = context.WithCancel(context.WithoutCancel(ctx))
	t.known = knownBrokers(ctx, v)
	for i, f := range cfg.Faults {
		t.results[i] = Result{Name: f.Name, Action: f.Action, Target: f.TargetString(), Broker: -1, Status: StatusNotReached}
		t.finished[i] = make(chan struct{})
	}
	go t.run(ctx)
	return t, nil
}

// knownBrokers are the node ids the cluster's metadata lists or its
// partitions' replicas name (a broker down at the start still holds its
// replicas); nil when the metadata does not answer.
func knownBrokers(ctx context.Context, v view) map[int32]bool {
	m, err := v.metadata(ctx)
	if err != nil {
		return nil
	}
	known := map[int32]bool{}
	for _, b := range m.Brokers {
		known[b.NodeID] = true
	}
	for _, td := range m.Topics {
		for _, p := range td.Partitions {
			for _, r := range p.Replicas {
				known[r] = true
			}
		}
	}
	if len(known) == 0 {
		return nil
	}
	return known
}

// run waits for every fault, each on its own.
func (t *Timeline) run(ctx context.Context) {
	defer close(t.done)
	var wg sync.WaitGroup
	for i := range t.cfg.Faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(t.finished[i])
			t.schedule(ctx, i)
		}()
	}
	wg.Wait()
}

// schedule carries out fault i at its time: its at, or its delay after the
// fault it follows was done.
func (t *Timeline) schedule(ctx context.Context, i int) {
	f := t.cfg.Faults[i]
	due := f.At
	if f.After != "" {
		after, ok := t.followed(ctx, i)
		if !ok {
			return
		}
		due += after
	}
	if !t.wait(ctx, due) {
		t.notReached(i, due, ctx)
		return
	}
	t.fire(ctx, i)
}

// followed waits for the fault that fault i follows and returns when it
// was done; false when it was not (fault i's status then says why).
func (t *Timeline) followed(ctx context.Context, i int) (time.Duration, bool) {
	f := t.cfg.Faults[i]
	j := t.index(f.After)
	if j < 0 {
		t.set(i, func(r *Result) { r.Status, r.Error = StatusFailed, fmt.Sprintf("no fault named %q", f.After) })
		return 0, false
	}
	select {
	case <-t.finished[j]:
	case <-ctx.Done():
		t.notReached(i, 0, ctx)
		return 0, false
	}
	switch before := t.get(j).Status; before {
	case StatusDone:
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.doneAt[j], true
	case StatusNotReached:
		t.set(i, func(r *Result) { r.Note = fmt.Sprintf("fault %q it follows did not happen", f.After) })
	default:
		why := map[string]string{StatusFailed: "failed", StatusSkipped: "was skipped"}[before]
		t.set(i, func(r *Result) { r.Status, r.Note = StatusSkipped, fmt.Sprintf("fault %q it follows %s", f.After, why) })
	}
	return 0, false
}

// wait sleeps until the scenario's time due; false when the timeline ended
// or ctx was done first.
func (t *Timeline) wait(ctx context.Context, due time.Duration) bool {
	timer := time.NewTimer(time.Until(t.start.Add(due)))
	defer timer.Stop()
	select {
	case <-timer.C:
		select { // an end at the same moment wins
		case <-t.stop:
			return false
		default:
			return ctx.Err() == nil
		}
	case <-t.stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// sleep waits for d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// notReached records why fault i, due at due, did not happen.
func (t *Timeline) notReached(i int, due time.Duration, ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &t.results[i]
	r.Status = StatusNotReached
	if ctx.Err() != nil {
		r.Note = "the run was interrupted first"
		return
	}
	r.Note = fmt.Sprintf("sending ended at %.1f s, before its time (%.1f s)", t.endAt.Seconds(), due.Seconds())
}

func (t *Timeline) index(name string) int {
	for i, f := range t.cfg.Faults {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func (t *Timeline) set(i int, f func(*Result)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(&t.results[i])
}

func (t *Timeline) get(i int) Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.results[i]
}

// label names result i in log lines.
func (t *Timeline) label(i int) string { return resultLabel(t.get(i)) }

// End ends the timeline when the workloads stop sending: faults not yet
// due are left "not reached", actions under way are waited for (until ctx
// ends), and every broker left down or paused is brought back (a heal,
// with its ISR recovery measured), so that producers flush to a whole
// cluster. Later calls do nothing.
func (t *Timeline) End(ctx context.Context) {
	t.ended.Do(func() {
		t.mu.Lock()
		t.endAt = time.Since(t.start)
		t.mu.Unlock()
		close(t.stop)
		select {
		case <-t.done:
		case <-ctx.Done():
		}
		for i := range t.cfg.Faults {
			if r := t.get(i); r.Status == StatusNotReached && r.Note != "" {
				t.cfg.Logf("warning: fault %s did not happen: %s", resultLabel(r), r.Note)
			}
		}
		t.heal(ctx)
	})
}

// measure runs f, what fault i measures ("the election"), with a context
// bounded by MeasureFor (and Finish).
func (t *Timeline) measure(i int, what string, f func(ctx context.Context)) {
	t.measures.Add(1)
	name := what + " of fault " + t.label(i) // label locks mu
	t.mu.Lock()
	if t.measuring == nil {
		t.measuring = map[int]string{}
	}
	t.measureID++
	id := t.measureID
	t.measuring[id] = name
	t.mu.Unlock()
	go func() {
		defer t.measures.Done()
		defer func() {
			t.mu.Lock()
			delete(t.measuring, id)
			t.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(t.mctx, t.cfg.MeasureFor)
		defer cancel()
		f(ctx)
	}()
}

// Finish ends the timeline (End, if not called yet), gives measurements
// until ctx ends to complete, and returns every fault's result, heals
// last.
func (t *Timeline) Finish(ctx context.Context) []Result {
	t.End(ctx)
	t.mu.Lock()
	var pending []string
	for _, what := range t.measuring {
		pending = append(pending, what)
	}
	t.mu.Unlock()
	if len(pending) > 0 {
		// Regression: a remote kill's election, never seen, held the run
		// for its 2 minutes while the progress said "about 0s left".
		sort.Strings(pending)
		t.cfg.Logf("the workloads ended; still measuring %s (each at most %s from its action; Ctrl-C ends it and writes what was measured)",
			strings.Join(pending, ", "), t.cfg.MeasureFor)
	}
	waited := make(chan struct{})
	go func() { t.measures.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		t.mcancel()
		<-waited
	}
	t.mcancel()
	t.view.close()
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Result(nil), t.results...)
}
