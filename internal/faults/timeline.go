package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Result statuses.
const (
	StatusDone       = "done"
	StatusFailed     = "failed"      // the action failed, or could not happen (Error says why)
	StatusSkipped    = "skipped"     // the fault it follows failed
	StatusNotReached = "not reached" // sending ended before its time (Note says when)
)

// Result is what one fault did and what was measured.
type Result struct {
	Name, Action, Target string
	Broker               int32         // -1 when the target could not be resolved
	At                   time.Duration // since the scenario's start, when the action began
	Took                 time.Duration // the action itself (a restart waits for the broker)
	// Affected are the partitions the broker led when the fault began.
	Affected []Moved
	// Election is the time from the action until every affected
	// partition had a leader on another broker; ISRRecovered, for an action
	// that brings a broker back, until every partition's ISR was full. Nil
	// when not measured (the action does neither, or the broker led
	// nothing) or not seen; the TimedOut flags say measuring gave up first.
	Election, ISRRecovered                 *time.Duration
	ElectionTimedOut, ISRRecoveredTimedOut bool
	// ElectionNote and ISRNote say what happened instead, or besides, in
	// words: "not within 120 s", "t-1 has no other replica and came back
	// with broker 2 after 25.3 s".
	ElectionNote, ISRNote string
	// Note says why a fault did not happen (not reached, skipped).
	Note   string
	Output string
	Status string
	Error  string
}

// Moved is a partition whose leader the fault took away.
type Moved struct {
	Topic     string
	Partition int32
	// To is the new leader, -1 until one was seen; To == From when the
	// partition had no other in-sync replica and came back with its broker.
	From, To int32
}

// Config is a timeline to run.
type Config struct {
	Faults []Fault
	Actor  Actor
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
	cl    *kgo.Client
	adm   *kadm.Client
	stop  chan struct{} // closed by End: faults not yet due will not happen
	done  chan struct{} // closed once every fault has its final status
	ended sync.Once

	mu       sync.Mutex
	endAt    time.Duration
	results  []Result
	finished []chan struct{} // by fault: closed once it has its final status
	doneAt   []time.Duration // by fault: when its action was done
	busy     map[int32]int   // broker → the fault whose action runs on it
	down     map[int32]bool  // brokers a fault took away and none brought back
	// elections are the election measurements still running, by broker.
	elections map[int32]*election
	measures  sync.WaitGroup
	mctx      context.Context
	mcancel   context.CancelFunc
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
	// The client answers metadata requests from a cache younger than
	// MetadataMinAge (5 s by default): polling every 50 ms needs fresh
	// answers.
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), cfg.Admin...), kgo.ClientID("kbench-faults"), kgo.MetadataMinAge(10*time.Millisecond))...)
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	n := len(cfg.Faults)
	t := &Timeline{cfg: cfg, start: start, cl: cl, adm: kadm.NewClient(cl), stop: make(chan struct{}), done: make(chan struct{}),
		results: make([]Result, n), finished: make([]chan struct{}, n), doneAt: make([]time.Duration, n),
		busy: map[int32]int{}, down: map[int32]bool{}, elections: map[int32]*election{}}
	t.mctx, t.mcancel = context.WithCancel(context.WithoutCancel(ctx))
	for i, f := range cfg.Faults {
		t.results[i] = Result{Name: f.Name, Action: f.Action, Target: f.Target.String(), Broker: -1, Status: StatusNotReached}
		t.finished[i] = make(chan struct{})
	}
	go t.run(ctx)
	return t, nil
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
		j := t.index(f.After)
		if j < 0 {
			t.set(i, func(r *Result) { r.Status, r.Error = StatusFailed, fmt.Sprintf("no fault named %q", f.After) })
			return
		}
		select {
		case <-t.finished[j]:
		case <-ctx.Done():
			t.notReached(i, 0, ctx)
			return
		}
		switch before := t.get(j).Status; before {
		case StatusDone:
			t.mu.Lock()
			due += t.doneAt[j]
			t.mu.Unlock()
		case StatusNotReached:
			t.set(i, func(r *Result) { r.Note = fmt.Sprintf("fault %q it follows did not happen", f.After) })
			return
		default:
			why := map[string]string{StatusFailed: "failed", StatusSkipped: "was skipped"}[before]
			t.set(i, func(r *Result) { r.Status, r.Note = StatusSkipped, fmt.Sprintf("fault %q it follows %s", f.After, why) })
			return
		}
	}
	if !t.wait(ctx, due) {
		t.notReached(i, due, ctx)
		return
	}
	t.fire(ctx, i)
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

// fire carries out fault i and starts its measurements.
func (t *Timeline) fire(ctx context.Context, i int) {
	f := t.cfg.Faults[i]
	at := time.Since(t.start)
	broker, err := t.resolve(ctx, f.Target)
	if err == nil {
		err = t.claim(i, broker)
	}
	if err != nil {
		t.set(i, func(r *Result) { r.At, r.Broker, r.Status, r.Error = at, broker, StatusFailed, err.Error() })
		t.cfg.Logf("fault %s could not happen: %v", label(f), err)
		return
	}
	defer t.release(broker)
	t.mu.Lock()
	wasDown := t.down[broker]
	t.mu.Unlock()
	// Only an action on a running broker moves its leaders: after a kill,
	// the broker keeps them until it is fenced, and that election belongs
	// to the kill, also when a restart has begun by then.
	var led map[Partition]watched
	if f.Action != Resume && !wasDown {
		led, _ = t.leadersOf(ctx, broker)
	}
	t.set(i, func(r *Result) { r.At, r.Broker = at, broker })
	t.cfg.Logf("fault %s: %s broker %d at %.1fs", label(f), f.Action, broker, at.Seconds())
	began := time.Now()
	if len(led) > 0 {
		t.startElection(i, broker, led, began)
	}
	var out string
	times := max(f.Times, 1)
	for k := 0; k < times && err == nil; k++ {
		var o string
		o, err = t.cfg.Actor.Act(ctx, f.Action, broker)
		out += o
	}
	took := time.Since(began)
	t.set(i, func(r *Result) {
		r.Took, r.Output = took, out
		r.Status = StatusDone
		if err != nil {
			r.Status, r.Error = StatusFailed, err.Error()
		}
	})
	if err != nil {
		t.cfg.Logf("fault %s failed: %v", label(f), err)
		return
	}
	t.mu.Lock()
	t.doneAt[i] = time.Since(t.start)
	if Removes(f.Action) {
		t.down[broker] = true
	} else if Returns(f.Action) {
		delete(t.down, broker)
	}
	t.mu.Unlock()
	if f.Action == Resume {
		t.resumed(broker)
	}
	if Returns(f.Action) {
		t.measure(func(ctx context.Context) { t.measureISR(ctx, i, began) })
	}
}

// claim marks broker as acted on by fault i; an action still running on
// it is an error: two at once would undo each other.
func (t *Timeline) claim(i int, broker int32) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.busy[broker]; ok {
		other := t.results[j]
		return fmt.Errorf("broker %d is still busy with fault %s, begun at %.1f s", broker, resultLabel(other), other.At.Seconds())
	}
	t.busy[broker] = i
	return nil
}

func (t *Timeline) release(broker int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.busy, broker)
}

// label names result i in log lines.
func (t *Timeline) label(i int) string { return resultLabel(t.get(i)) }

func resultLabel(r Result) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Action + " " + r.Target
}

func label(f Fault) string {
	if f.Name != "" {
		return f.Name
	}
	return f.Action + " " + f.Target.String()
}

// resolve finds the broker a target means now.
func (t *Timeline) resolve(ctx context.Context, tg Target) (int32, error) {
	switch {
	case tg.Fault != "":
		i := t.index(tg.Fault)
		if i < 0 {
			return -1, fmt.Errorf("no fault named %q", tg.Fault)
		}
		if b := t.get(i).Broker; b >= 0 {
			return b, nil
		}
		return -1, fmt.Errorf("fault %q acted on no broker", tg.Fault)
	case tg.Leader != nil:
		var lastErr error
		for try := 0; try < 20; try++ {
			leader, err := t.leader(ctx, *tg.Leader)
			if err == nil && leader >= 0 {
				return leader, nil
			}
			lastErr = err
			if !sleep(ctx, t.cfg.Poll) {
				lastErr = ctx.Err()
				break
			}
		}
		if lastErr == nil {
			lastErr = errors.New("it has no leader")
		}
		return -1, fmt.Errorf("find the leader of %s-%d: %w", tg.Leader.Topic, tg.Leader.Partition, lastErr)
	case tg.Controller:
		return t.controller(ctx)
	}
	return tg.Broker, nil
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

// controller asks the quorum for its leader (KRaft's active controller);
// older brokers that cannot answer give the metadata's controller.
func (t *Timeline) controller(ctx context.Context) (int32, error) {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rp := kmsg.NewDescribeQuorumRequestTopicPartition()
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	if resp, err := req.RequestWith(qctx, t.cl); err == nil && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
		if p := resp.Topics[0].Partitions[0]; p.ErrorCode == 0 && p.LeaderID >= 0 {
			return p.LeaderID, nil
		}
	}
	m, err := t.metadata(ctx)
	if err != nil {
		return -1, fmt.Errorf("find the controller: %w", err)
	}
	return m.Controller, nil
}

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

// heal brings back what the faults left down, one result row per broker.
func (t *Timeline) heal(ctx context.Context) {
	healed, err := t.cfg.Actor.Heal(ctx)
	for _, h := range healed {
		t.mu.Lock()
		t.results = append(t.results, Result{Name: "heal", Action: h.Action, Target: fmt.Sprintf("broker %d", h.Broker), Broker: h.Broker, At: time.Since(t.start), Status: StatusDone})
		i := len(t.results) - 1
		delete(t.down, h.Broker)
		t.mu.Unlock()
		t.cfg.Logf("end of sending: %s broker %d", h.Action, h.Broker)
		if h.Action == Resume {
			t.resumed(h.Broker)
		}
		began := time.Now()
		t.measure(func(ctx context.Context) { t.measureISR(ctx, i, began) })
	}
	if err != nil {
		t.mu.Lock()
		t.results = append(t.results, Result{Name: "heal", Action: Heal, Broker: -1, At: time.Since(t.start), Status: StatusFailed, Error: err.Error()})
		t.mu.Unlock()
	}
}

// Finish ends the timeline (End, if not called yet), gives measurements
// until ctx ends to complete, and returns every fault's result, heals
// last.
func (t *Timeline) Finish(ctx context.Context) []Result {
	t.End(ctx)
	waited := make(chan struct{})
	go func() { t.measures.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		t.mcancel()
		<-waited
	}
	t.mcancel()
	t.cl.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Result(nil), t.results...)
}
