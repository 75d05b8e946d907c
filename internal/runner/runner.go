// Package runner runs one scenario: it prepares the topics, starts every
// workload in parallel on one clock, stops them together and returns one
// Outcome with everything measured, also when the run fails part way.
// Learn Scenario and Run first.
//
// Consumers start first and the producers only once every consumer has its
// assignment, so consumers see every record of the run; end-to-end
// consumers stop once they have read what their producer had acknowledged.
package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload"
)

// Scenario is one run: the topics to prepare and the workloads to run
// side by side.
type Scenario struct {
	Name string
	// Admin are the client options for topic administration: bootstrap
	// servers and security.
	Admin     []kgo.Opt
	Topics    []Topic
	Workloads []Workload
	// OnStart, if set, is called once the topics are prepared and the
	// consumers have started, just before the producers start, with the
	// topics as the cluster reports them (the drop-in commands print their
	// headers then).
	OnStart func(topics []kadmin.TopicInfo)
	// OnEnded, if set, is called with each workload's name once it has
	// ended (the live view says "done").
	OnEnded func(workload string)

	// Reach, set by a study, shares what its runs found about the cluster
	// answering (nil: each run checks for itself); FailFast adds the
	// watchdog, which ends a run whose cluster stops answering (a study
	// leaves it off while its planned faults stop brokers).
	Reach    *Reachability
	FailFast bool

	// A distributed run's worker meets the others through these (all nil
	// or zero in a run of one process). Epoch aligns the intervals (zero:
	// the run's start); TopicsReady is called once this run's topics are
	// prepared (worker 0 prepares them; the others wait there for it);
	// Start once the engines are prepared and the readers ready: it
	// returns the common start, which Run waits for before the workloads
	// start (a time already past starts them at once).
	Epoch       time.Time
	TopicsReady func(ctx context.Context) error
	Start       func(ctx context.Context) (time.Time, error)
}

// Topic is a topic to prepare before the workloads start.
type Topic struct {
	kadmin.TopicSpec
	Existing kadmin.Existing
}

// Workload is one workload of a scenario: a spec of a registered kind
// (workload.Spec), which builds the engine that runs it.
type Workload struct {
	Name string
	Spec workload.Spec
	// Settings are the workload's effective client properties (secrets
	// redacted), for the result.
	Settings map[string]string
	// StartAfter starts the workload this long after the producers;
	// AfterWorkload, once the scenario's workload of that name has ended;
	// Backlog, once the writers have written this many value bytes. With
	// several, after all. A late engine is told so (workload.Env.Late): a
	// reader then reads its topics from the start (a catch-up read, or
	// what an earlier phase wrote) unless it measures end-to-end latency.
	StartAfter    time.Duration
	AfterWorkload string
	Backlog       int64
	// Gate, if set, is waited for last, once the rest has come: a late
	// start on a condition of the cluster (the study's wait_for: remote
	// waits until the topic's oldest records are only in the remote
	// tier). Its error fails the workload, which then never starts.
	Gate func(ctx context.Context) error
}

// late reports whether the workload starts after the others.
func (w *Workload) late() bool {
	return w.StartAfter > 0 || w.AfterWorkload != "" || w.Backlog > 0 || w.Gate != nil
}

// Outcome is what a scenario measured.
type Outcome struct {
	Start, End time.Time     // of the workloads, after the topics were prepared
	Setup      time.Duration // preparing topics
	Topics     []kadmin.TopicInfo
	// BrokerVersions are the releases the brokers' ApiVersions answers
	// match (empty when the scenario has no admin options or they did not
	// answer).
	BrokerVersions []string
	Workloads      []WorkloadOutcome
	// CPU is this process's CPU time (user and system) while the
	// workloads ran.
	CPU time.Duration
	// Goroutines is the most goroutines the process had while the
	// workloads ran, and PeakRSS the most resident memory it has held
	// since it started (bytes): with CPU, what its clients cost.
	Goroutines int
	PeakRSS    int64
}

// WorkloadOutcome is what one workload measured, by section (every
// section may be nil when the workload failed before measuring).
type WorkloadOutcome struct {
	Name string
	Kind string // the spec's (workload.Spec.Kind)
	workload.Measured
	Settings   map[string]string
	StartAfter time.Duration
	Backlog    int64
	Late       bool // started after the others (StartAfter, AfterWorkload or Backlog)
	// ProduceTopic is the topic a producing workload writes.
	ProduceTopic string
	Err          error
}

// Bounds of the steps around the workloads.
const (
	// ReadyTimeout bounds the wait for consumers' first assignment.
	ReadyTimeout = 60 * time.Second
)

// RunFunc runs a scenario as Run does. Callers that run scenarios (the
// drop-ins' compat.Env, a study's Options) take one, so that tests of what
// they print and write hand them canned outcomes; nil means Run.
type RunFunc func(ctx context.Context, sc Scenario) (*Outcome, error)

// Or is f, or Run when f is nil.
func (f RunFunc) Or() RunFunc {
	if f == nil {
		return Run
	}
	return f
}

// Run prepares the scenario's topics and runs its workloads. It returns an
// Outcome whenever the topics were prepared, together with an error when
// any workload failed or ctx ended the run, so that callers write what was
// measured.
//
// With admin options it first checks once that the cluster answers
// (kadmin.ConnectTimeout), so that an unreachable cluster fails there
// instead of in every step's own timeouts. Once ctx ends, Run returns
// within the workloads' own bounds after Ctrl-C: no step of the setup
// waits on a broker past it.
func Run(ctx context.Context, sc Scenario) (*Outcome, error) {
	if err := sc.validate(); err != nil {
		return nil, err
	}
	if len(sc.Admin) > 0 {
		if err := sc.Reach.Check(ctx, sc.Admin); err != nil {
			return nil, err
		}
	}
	out := &Outcome{Workloads: make([]WorkloadOutcome, len(sc.Workloads))}
	setup := time.Now()
	for _, t := range sc.Topics {
		info, err := kadmin.Await(ctx, func(ctx context.Context) (kadmin.TopicInfo, error) {
			return kadmin.PrepareTopic(ctx, sc.Admin, t.TopicSpec, t.Existing)
		})
		if err != nil {
			return nil, fmt.Errorf("prepare topic %q: %w", t.Name, err)
		}
		out.Topics = append(out.Topics, info)
	}
	out.Setup = time.Since(setup)
	if sc.TopicsReady != nil {
		if err := sc.TopicsReady(ctx); err != nil {
			return nil, err
		}
	}
	if len(sc.Admin) > 0 {
		out.BrokerVersions, _, _ = kadmin.BrokerVersions(ctx, sc.Admin) // informational
	}
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wd *watchdog
	if sc.FailFast && len(sc.Admin) > 0 {
		wd = &watchdog{ctx: ctx, cancel: cancel, admin: sc.Admin, reach: sc.Reach}
	}

	epoch := sc.Epoch
	if epoch.IsZero() {
		epoch = time.Now()
	}
	env := workload.Env{Epoch: epoch, Written: new(atomic.Int64)}
	if wd != nil {
		env.OnStall = wd.stalled
	}
	cpu0 := measure.ProcessCPU()
	peak := measure.WatchPeak()
	runs := make([]*running, len(sc.Workloads))
	for i, w := range sc.Workloads {
		out.Workloads[i] = WorkloadOutcome{Name: w.Name, Kind: w.Spec.Kind(), Settings: w.Settings, StartAfter: w.StartAfter, Backlog: w.Backlog, Late: w.late()}
		if p, ok := w.Spec.(workload.Producing); ok {
			out.Workloads[i].ProduceTopic = p.Producer().Topic
		}
		runs[i] = &running{w: w, eng: w.Spec.Engine(), ended: make(chan struct{})}
		if w.late() {
			runs[i].late = make(chan struct{}) // before any goroutine looks at it
		}
	}
	var startErr error
	for _, r := range runs {
		if startErr == nil && r.late == nil {
			startErr = r.wrap(r.eng.Prepare(ctx, env))
		}
	}
	if startErr == nil && (writes(runs) || sc.Start != nil) {
		// Writers wait for the readers' partitions, so that readers see
		// every record; readers alone need not wait, unless other
		// processes' writers start at the common start (a distributed
		// worker reaches its start barrier with its readers assigned).
		startErr = waitReady(ctx, early(runs))
	}
	if startErr == nil && sc.Start != nil {
		startErr = waitStart(ctx, sc.Start)
	}
	if startErr == nil && sc.OnStart != nil {
		sc.OnStart(out.Topics)
	}
	out.Start = time.Now()
	if startErr == nil {
		for _, r := range runs {
			if r.late != nil {
				continue
			}
			if startErr = r.wrap(r.eng.Start(ctx, env)); startErr != nil {
				break
			}
		}
	}
	for _, r := range runs {
		if r.late == nil {
			continue
		}
		if startErr != nil {
			close(r.late) // never started
			continue
		}
		r.startLate(ctx, env, runs)
	}

	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(r.ended)
			m := r.finish(startErr != nil)
			o := &out.Workloads[i]
			o.Measured, o.Err = m, r.err
			if sc.OnEnded != nil {
				sc.OnEnded(r.w.Name)
			}
		}()
	}
	wg.Wait()
	out.End = time.Now()
	out.CPU = measure.ProcessCPU() - cpu0
	out.Goroutines, out.PeakRSS = peak.Stop(), measure.PeakRSS()
	if wd != nil {
		cancel(nil) // a check still running ends with the run
		wd.wait()
	}
	if cause := context.Cause(ctx); outer.Err() == nil && errors.Is(cause, kadmin.ErrUnreachable) {
		// The watchdog ended the run: its reason, not the workloads'
		// cancellations.
		return out, cause
	}
	errs := []error{startErr}
	for _, o := range out.Workloads {
		if o.Err != nil {
			errs = append(errs, fmt.Errorf("workload %q: %w", o.Name, o.Err))
		}
	}
	return out, errors.Join(errs...)
}

// waitStart waits for the common start that start returns.
func waitStart(ctx context.Context, start func(context.Context) (time.Time, error)) error {
	at, err := start(ctx)
	if err != nil {
		return err
	}
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (sc *Scenario) validate() error {
	if len(sc.Workloads) == 0 {
		return fmt.Errorf("scenario %q: no workloads", sc.Name)
	}
	for _, w := range sc.Workloads {
		if w.Spec == nil {
			return fmt.Errorf("scenario %q: workload %q has no spec", sc.Name, w.Name)
		}
	}
	return nil
}

// running is one workload's engine while the scenario runs.
type running struct {
	w   Workload
	eng workload.Engine
	// late is closed once a late workload has started (or could not, or
	// never will); until then only its own goroutine touches eng.
	late chan struct{}
	// ended is closed once the workload has ended (finish returned).
	ended chan struct{}
	err   error
}

// wrap names the workload in an error of its engine.
func (r *running) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("workload %q: %w", r.w.Name, err)
}

// writes reports whether any engine writes records.
func writes(runs []*running) bool {
	for _, r := range runs {
		if _, ok := r.eng.(workload.Writer); ok {
			return true
		}
	}
	return false
}

// startLate starts a late workload once its time has come: after
// StartAfter, then the end of the workload it waits for, then the backlog,
// then its gate.
// An engine that both reads and writes gets its partitions before it
// starts writing.
func (r *running) startLate(ctx context.Context, env workload.Env, runs []*running) {
	var after *running
	for _, o := range runs {
		if r.w.AfterWorkload != "" && o.w.Name == r.w.AfterWorkload {
			after = o
		}
	}
	env.Late = true
	go func() {
		defer close(r.late)
		t := time.NewTimer(r.w.StartAfter)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if after != nil {
			select {
			case <-ctx.Done():
				return
			case <-after.ended:
			}
		}
		// Then the backlog, polled: the writers add to Written as their
		// records complete. Writers that have all ended will add no more.
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for r.w.Backlog > 0 && env.Written.Load() < r.w.Backlog && !writersDone(runs) {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		if r.w.Gate != nil {
			if r.err = r.wrap(r.w.Gate(ctx)); r.err != nil {
				return
			}
		}
		if r.err = r.wrap(r.eng.Prepare(ctx, env)); r.err != nil {
			return
		}
		if _, ok := r.eng.(workload.Writer); ok {
			if err := waitReady(ctx, []*running{r}); err != nil {
				r.err = err
				r.eng.Stop()
				return
			}
		}
		if r.err = r.wrap(r.eng.Start(ctx, env)); r.err != nil {
			r.eng.Stop()
		}
	}()
}

// early is the runs that start with the scenario, not late.
func early(runs []*running) []*running {
	var out []*running
	for _, r := range runs {
		if r.late == nil {
			out = append(out, r)
		}
	}
	return out
}

// writersDone reports whether every writer of the scenario has stopped
// writing (a late one has not while it waits to start).
func writersDone(runs []*running) bool {
	for _, o := range runs {
		w, ok := o.eng.(workload.Writer)
		if !ok {
			continue
		}
		if o.late != nil {
			select {
			case <-o.late:
			default:
				return false
			}
		}
		select {
		case <-w.Sent():
		default:
			return false
		}
	}
	return true
}

// waitReady waits until every reader among runs has its first assignment.
func waitReady(ctx context.Context, runs []*running) error {
	t := time.NewTimer(ReadyTimeout)
	defer t.Stop()
	for _, r := range runs {
		rd, ok := r.eng.(workload.Reader)
		if !ok {
			continue
		}
		select {
		case <-rd.Ready():
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return fmt.Errorf("workload %q: consumers had no partitions assigned after %s", r.w.Name, ReadyTimeout)
		}
	}
	return nil
}

// finish waits for the workload to end and returns what it measured;
// abort stops it at once (a workload of the scenario failed to start).
func (r *running) finish(abort bool) workload.Measured {
	if r.late != nil {
		<-r.late // started (or given up) before it can be waited for
	}
	if abort {
		r.eng.Stop()
	}
	m, err := r.eng.Wait()
	r.err = errors.Join(r.err, err) // a late start's failure first
	return m
}
