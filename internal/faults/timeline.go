package faults

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Result statuses.
const (
	StatusDone       = "done"
	StatusFailed     = "failed"      // the action failed
	StatusSkipped    = "skipped"     // the fault it follows failed
	StatusNotReached = "not reached" // the scenario ended first
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
	// partition had a new leader; ISRRecovered, for an action that brings
	// a broker back, until every partition's ISR was full. Nil when not
	// measured (the action does neither, or it led nothing); the TimedOut
	// flags say the bound passed first.
	Election, ISRRecovered                 *time.Duration
	ElectionTimedOut, ISRRecoveredTimedOut bool
	Output                                 string
	Status                                 string
	Error                                  string
}

// Moved is a partition whose leader the fault took away.
type Moved struct {
	Topic     string
	Partition int32
	From, To  int32 // To is -1 until a new leader was seen
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
	// bounds each measurement (default 2 minutes).
	Poll, MeasureFor time.Duration
	// Logf, if set, is told of each action as it happens.
	Logf func(format string, args ...any)
}

// Timeline runs a fault plan against a scenario.
type Timeline struct {
	cfg   Config
	start time.Time
	cl    *kgo.Client
	adm   *kadm.Client
	stop  chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	results []Result
	// electing stops a broker's election measurement once the broker is
	// back: with no other replica, it leads again and no election comes.
	electing map[int32]context.CancelFunc
	measures sync.WaitGroup
	mctx     context.Context
	mcancel  context.CancelFunc
}

// Start begins the timeline; start is the scenario's time zero.
func Start(ctx context.Context, cfg Config, start time.Time) (*Timeline, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = 50 * time.Millisecond
	}
	if cfg.MeasureFor <= 0 {
		cfg.MeasureFor = 2 * time.Minute
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
	t := &Timeline{cfg: cfg, start: start, cl: cl, adm: kadm.NewClient(cl), stop: make(chan struct{}), done: make(chan struct{}), electing: map[int32]context.CancelFunc{}}
	t.mctx, t.mcancel = context.WithCancel(context.WithoutCancel(ctx))
	t.results = make([]Result, len(cfg.Faults))
	for i, f := range cfg.Faults {
		t.results[i] = Result{Name: f.Name, Action: f.Action, Target: f.Target.String(), Broker: -1, Status: StatusNotReached}
	}
	go t.run(ctx)
	return t, nil
}

// run fires the faults in time order; one that follows another is due its
// delay after that one was done.
func (t *Timeline) run(ctx context.Context) {
	defer close(t.done)
	fired := map[string]time.Duration{} // by name: when it was done
	failed := map[string]bool{}
	pending := make([]int, len(t.cfg.Faults))
	for i := range pending {
		pending[i] = i
	}
	for len(pending) > 0 {
		// The next due fault among those whose time is known.
		next, due := -1, time.Duration(0)
		for _, i := range pending {
			f := t.cfg.Faults[i]
			d := f.At
			if f.After != "" {
				at, ok := fired[f.After]
				if !ok {
					continue
				}
				d = at + f.At
			}
			if next < 0 || d < due {
				next, due = i, d
			}
		}
		if next < 0 {
			return // the rest follow faults that will never fire
		}
		pending = remove(pending, next)
		f := t.cfg.Faults[next]
		if f.After != "" && failed[f.After] {
			t.set(next, func(r *Result) {
				r.Status, r.Error = StatusSkipped, fmt.Sprintf("fault %q it follows failed", f.After)
			})
			failed[f.Name] = true
			continue
		}
		wait := time.Until(t.start.Add(due))
		select {
		case <-ctx.Done():
			return
		case <-t.stop:
			return
		case <-time.After(wait):
		}
		if !t.fire(ctx, next) {
			failed[f.Name] = true
		}
		fired[f.Name] = time.Since(t.start)
	}
}

func remove(s []int, v int) []int {
	out := s[:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
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

// fire carries out fault i and starts its measurements; false when it
// failed.
func (t *Timeline) fire(ctx context.Context, i int) bool {
	f := t.cfg.Faults[i]
	at := time.Since(t.start)
	broker, err := t.resolve(ctx, f.Target)
	if err != nil {
		t.set(i, func(r *Result) { r.At, r.Status, r.Error = at, StatusFailed, err.Error() })
		t.cfg.Logf("fault %s: %v", label(f), err)
		return false
	}
	// A restart or bounce of a running broker moves its leaders too.
	var leaders map[Partition]int32
	if f.Action != Resume {
		leaders, _ = t.leadersOf(ctx, broker)
	}
	t.set(i, func(r *Result) { r.At, r.Broker = at, broker })
	t.cfg.Logf("fault %s: %s broker %d at %.1fs", label(f), f.Action, broker, at.Seconds())
	began := time.Now()
	if Returns(f.Action) {
		t.stopElection(broker)
	}
	if len(leaders) > 0 {
		stopped, stop := context.WithCancel(context.Background())
		t.mu.Lock()
		t.electing[broker] = stop
		t.mu.Unlock()
		t.measure(func(ctx context.Context) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(stopped, cancel)()
			t.measureElection(ctx, i, broker, leaders, began)
		})
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
		return false
	}
	if Returns(f.Action) {
		t.measure(func(ctx context.Context) { t.measureISR(ctx, i, began) })
	}
	return true
}

// label names result i in log lines.
func (t *Timeline) label(i int) string {
	r := t.get(i)
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
		for i, f := range t.cfg.Faults {
			if f.Name == tg.Fault {
				if b := t.get(i).Broker; b >= 0 {
					return b, nil
				}
				return -1, fmt.Errorf("fault %q acted on no broker", tg.Fault)
			}
		}
		return -1, fmt.Errorf("no fault named %q", tg.Fault)
	case tg.Leader != nil:
		var lastErr error
		for try := 0; try < 20; try++ {
			leader, err := t.leader(ctx, *tg.Leader)
			if err == nil && leader >= 0 {
				return leader, nil
			}
			lastErr = err
			time.Sleep(t.cfg.Poll)
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

func (t *Timeline) metadata(ctx context.Context) (kadm.Metadata, error) {
	mctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return t.adm.Metadata(mctx, t.cfg.Topics...)
}

func (t *Timeline) leader(ctx context.Context, p Partition) (int32, error) {
	mctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	m, err := t.adm.Metadata(mctx, p.Topic)
	if err != nil {
		return -1, err
	}
	pd, ok := m.Topics[p.Topic].Partitions[p.Partition]
	if !ok {
		return -1, fmt.Errorf("topic %s has no partition %d", p.Topic, p.Partition)
	}
	return pd.Leader, nil
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

// leadersOf lists the partitions of the scenario's topics broker leads.
func (t *Timeline) leadersOf(ctx context.Context, broker int32) (map[Partition]int32, error) {
	m, err := t.metadata(ctx)
	if err != nil {
		return nil, err
	}
	out := map[Partition]int32{}
	for _, td := range m.Topics {
		for _, pd := range td.Partitions {
			if pd.Leader == broker {
				out[Partition{Topic: td.Topic, Partition: pd.Partition}] = broker
			}
		}
	}
	return out, nil
}

// stopElection ends the election measurement of broker, if one runs.
func (t *Timeline) stopElection(broker int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cancel, ok := t.electing[broker]; ok {
		cancel()
		delete(t.electing, broker)
	}
}

// measure runs f with a context bounded by MeasureFor (and Finish).
func (t *Timeline) measure(f func(ctx context.Context)) {
	t.measures.Add(1)
	go func() {
		defer t.measures.Done()
		ctx, cancel := context.WithTimeout(t.mctx, t.cfg.MeasureFor)
		defer cancel()
		f(ctx)
	}()
}

// measureElection polls metadata until every partition broker led has
// another leader.
func (t *Timeline) measureElection(ctx context.Context, i int, broker int32, led map[Partition]int32, began time.Time) {
	if len(led) == 0 {
		return // it led nothing: no election to time
	}
	moved := map[Partition]int32{}
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		if m, err := t.metadata(ctx); err == nil {
			for p := range led {
				if pd, ok := m.Topics[p.Topic].Partitions[p.Partition]; ok && pd.Leader >= 0 && pd.Leader != broker {
					if _, seen := moved[p]; !seen {
						moved[p] = pd.Leader
					}
				}
			}
		}
		if len(moved) == len(led) {
			d := time.Since(began)
			t.set(i, func(r *Result) { r.Election = &d; r.Affected = movedList(led, moved) })
			t.cfg.Logf("fault %s: every partition broker %d led has a new leader after %s", t.label(i), broker, d.Round(time.Millisecond))
			return
		}
		select {
		case <-ctx.Done():
			// Ended by the bound, or by the broker's return (then no other
			// replica took over: not a timeout).
			timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
			t.set(i, func(r *Result) { r.ElectionTimedOut = timedOut; r.Affected = movedList(led, moved) })
			return
		case <-tick.C:
		}
	}
}

func movedList(led, moved map[Partition]int32) []Moved {
	out := make([]Moved, 0, len(led))
	for p, from := range led {
		to, ok := moved[p]
		if !ok {
			to = -1
		}
		out = append(out, Moved{Topic: p.Topic, Partition: p.Partition, From: from, To: to})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Topic != out[b].Topic {
			return out[a].Topic < out[b].Topic
		}
		return out[a].Partition < out[b].Partition
	})
	return out
}

// measureISR polls metadata until every partition's ISR holds all its
// replicas.
func (t *Timeline) measureISR(ctx context.Context, i int, began time.Time) {
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		if m, err := t.metadata(ctx); err == nil && isrFull(m) {
			d := time.Since(began)
			t.set(i, func(r *Result) { r.ISRRecovered = &d })
			t.cfg.Logf("fault %s: every in-sync replica set is full after %s", t.label(i), d.Round(time.Millisecond))
			return
		}
		select {
		case <-ctx.Done():
			t.set(i, func(r *Result) { r.ISRRecoveredTimedOut = true })
			return
		case <-tick.C:
		}
	}
}

func isrFull(m kadm.Metadata) bool {
	if len(m.Topics) == 0 {
		return false
	}
	for _, td := range m.Topics {
		if td.Err != nil || len(td.Partitions) == 0 {
			return false
		}
		for _, pd := range td.Partitions {
			if pd.Err != nil || len(pd.ISR) < len(pd.Replicas) {
				return false
			}
		}
	}
	return true
}

// Finish ends the timeline: faults not yet due are left "not reached",
// every broker left down is brought back (recorded as a heal, its ISR
// recovery measured), and measurements get until ctx ends to complete.
func (t *Timeline) Finish(ctx context.Context) []Result {
	close(t.stop)
	select {
	case <-t.done:
	case <-ctx.Done():
	}
	healed, err := t.cfg.Actor.Heal(ctx)
	for _, h := range healed {
		t.mu.Lock()
		t.results = append(t.results, Result{Name: "heal", Action: h.Action, Target: fmt.Sprintf("broker %d", h.Broker), Broker: h.Broker, At: time.Since(t.start), Status: StatusDone})
		i := len(t.results) - 1
		t.mu.Unlock()
		t.cfg.Logf("end of run: %s broker %d", h.Action, h.Broker)
		began := time.Now()
		t.measure(func(ctx context.Context) { t.measureISR(ctx, i, began) })
	}
	if err != nil {
		t.mu.Lock()
		t.results = append(t.results, Result{Name: "heal", Action: Heal, Broker: -1, At: time.Since(t.start), Status: StatusFailed, Error: err.Error()})
		t.mu.Unlock()
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
	t.cl.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Result(nil), t.results...)
}
