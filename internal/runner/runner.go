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

// Kind is what a workload does.
type Kind string

// The kinds of workload.
const (
	Produce  Kind = "produce"    // producers; publish latency
	Consume  Kind = "consume"    // consumers; throughput, lag
	EndToEnd Kind = "end-to-end" // producers and a consumer of their records; end-to-end latency
	// Probe sends one record at a time and waits to consume it before the
	// next, as Apache's EndToEndLatency tool does.
	Probe Kind = "probe"
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

	// reach, set by RunPlan, shares what the plan's runs found about the
	// cluster answering; failFast adds the watchdog (no plan faults).
	reach    *reachability
	failFast bool
}

// Topic is a topic to prepare before the workloads start.
type Topic struct {
	kadmin.TopicSpec
	Existing kadmin.Existing
}

// Workload is one workload of a scenario. Produce uses Producer, Consume
// uses Consumer, EndToEnd both: its consumer reads the producer's topic
// from its end and measures latency from each record's send time.
type Workload struct {
	Name     string
	Kind     Kind
	Producer *workload.ProducerSpec
	Consumer *workload.ConsumerSpec
	Probe    *workload.E2ESpec
	// Settings are the workload's effective client properties (secrets
	// redacted), for the result.
	Settings map[string]string
	// StartAfter starts the workload this long after the producers;
	// AfterWorkload, once the scenario's workload of that name has ended;
	// Backlog (consume only), once the producers have written this many
	// value bytes. With several, after all. A consume workload started late
	// reads its topics from the start (a catch-up read, or what an earlier
	// phase wrote); an end-to-end one from their end, as always.
	StartAfter    time.Duration
	AfterWorkload string
	Backlog       int64
	// ShortOK: a consume workload its idle timeout stopped short of its
	// records has not failed (consumer-perf-test without --strict, which
	// exits 0 as the Apache tool does and says the shortfall itself).
	ShortOK bool
}

// late reports whether the workload starts after the others.
func (w *Workload) late() bool { return w.StartAfter > 0 || w.AfterWorkload != "" || w.Backlog > 0 }

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
}

// WorkloadOutcome is what one workload measured; either part may be nil
// when the workload failed before measuring.
type WorkloadOutcome struct {
	Name       string
	Kind       Kind
	Producer   *workload.ProducerResult
	Consumer   *workload.ConsumerResult
	Probe      *workload.E2EResult
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
	// readyTimeout bounds the wait for consumers' first assignment.
	readyTimeout = 60 * time.Second
	// drainTimeout bounds the wait for an end-to-end consumer to read
	// the records its producer had acknowledged when it finished.
	drainTimeout = 30 * time.Second
)

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
		if err := sc.reach.check(ctx, sc.Admin); err != nil {
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
	if len(sc.Admin) > 0 {
		out.BrokerVersions, _, _ = kadmin.BrokerVersions(ctx, sc.Admin) // informational
	}
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wd *watchdog
	if sc.failFast && len(sc.Admin) > 0 {
		wd = &watchdog{ctx: ctx, cancel: cancel, admin: sc.Admin, reach: sc.reach}
	}

	epoch := time.Now()
	progress := new(atomic.Int64) // value bytes the producers have written, for Backlog
	cpu0 := measure.ProcessCPU()
	runs := make([]*running, len(sc.Workloads))
	var startErr error
	for i, w := range sc.Workloads {
		out.Workloads[i] = WorkloadOutcome{Name: w.Name, Kind: w.Kind, Settings: w.Settings, StartAfter: w.StartAfter, Backlog: w.Backlog, Late: w.late()}
		if w.Producer != nil {
			out.Workloads[i].ProduceTopic = w.Producer.Topic
		}
		runs[i] = &running{w: w, ended: make(chan struct{})}
		if w.late() {
			runs[i].late = make(chan struct{}) // before any goroutine looks at it
		}
	}
	for _, r := range runs {
		if r.w.Consumer != nil && startErr == nil && !r.w.late() {
			startErr = r.startConsumer(ctx, epoch)
		}
	}
	if startErr == nil && sc.produces() {
		// Producers wait for the consumers' partitions, so that consumers
		// see every record; consumers alone need not wait.
		startErr = waitReady(ctx, runs)
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
			if r.w.Producer != nil {
				if startErr = r.startProducer(ctx, epoch, progress, wd); startErr != nil {
					break
				}
			}
			if r.w.Probe != nil {
				r.startProbe(ctx)
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
		r.startLate(ctx, epoch, progress, runs, wd)
	}

	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(r.ended)
			r.finish(startErr != nil)
			o := &out.Workloads[i]
			o.Producer, o.Consumer, o.Probe, o.Err = r.prodRes, r.consRes, r.probeRes, r.err
			if sc.OnEnded != nil {
				sc.OnEnded(r.w.Name)
			}
		}()
	}
	wg.Wait()
	out.End = time.Now()
	out.CPU = measure.ProcessCPU() - cpu0
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

func (sc *Scenario) validate() error {
	if len(sc.Workloads) == 0 {
		return fmt.Errorf("scenario %q: no workloads", sc.Name)
	}
	for _, w := range sc.Workloads {
		ok := false
		switch w.Kind {
		case Produce:
			ok = w.Producer != nil && w.Consumer == nil
		case Consume:
			ok = w.Consumer != nil && w.Producer == nil
		case EndToEnd:
			ok = w.Producer != nil && w.Consumer != nil
		case Probe:
			ok = w.Probe != nil && w.Producer == nil && w.Consumer == nil
		}
		if !ok {
			return fmt.Errorf("scenario %q: workload %q of kind %q has the wrong engines", sc.Name, w.Name, w.Kind)
		}
	}
	return nil
}

// running is one workload's engines while the scenario runs.
type running struct {
	w       Workload
	prod    *workload.ProducerRun
	cons    *workload.ConsumerRun
	prodRes *workload.ProducerResult
	consRes *workload.ConsumerResult
	// late is closed once a late workload has started (or could not, or
	// never will); until then only its own goroutine touches prod and cons.
	late chan struct{}
	// ended is closed once the workload has ended (finish returned).
	ended chan struct{}
	// probeDone is closed when the probe has ended and probeRes is set.
	probeDone chan struct{}
	probeRes  *workload.E2EResult
	probeErr  error
	err       error
}

// produces reports whether any workload writes records.
func (sc *Scenario) produces() bool {
	for _, w := range sc.Workloads {
		if w.Producer != nil || w.Probe != nil {
			return true
		}
	}
	return false
}

// startLate starts a late workload once its time has come: after
// StartAfter, then the end of the workload it waits for, then the backlog.
// A consume workload reads from the start of its topics; an end-to-end
// workload's consumer gets its partitions before its producers start.
func (r *running) startLate(ctx context.Context, epoch time.Time, progress *atomic.Int64, runs []*running, wd *watchdog) {
	var after *running
	for _, o := range runs {
		if r.w.AfterWorkload != "" && o.w.Name == r.w.AfterWorkload {
			after = o
		}
	}
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
		// Then the backlog, polled: the producers add to progress as their
		// records complete. Producers that have all ended will add no more.
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for r.w.Backlog > 0 && progress.Load() < r.w.Backlog && !producersDone(runs) {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		if r.w.Consumer != nil {
			w := r.w
			if w.Kind == Consume {
				spec := *r.w.Consumer
				opts := spec.ClientOpts
				spec.ClientOpts = func(i int) []kgo.Opt {
					// Both: the start offset decides where a group without
					// commits begins (auto.offset.reset=latest sets it to the end).
					start := kgo.NewOffset().AtStart()
					return append(opts(i), kgo.ConsumeStartOffset(start), kgo.ConsumeResetOffset(start))
				}
				spec.Latest = false
				w.Consumer = &spec
			}
			late := &running{w: w}
			if err := late.startConsumer(ctx, epoch); err != nil {
				r.err = err
				return
			}
			r.cons = late.cons
			if w.Kind == EndToEnd {
				if err := waitReady(ctx, []*running{r}); err != nil {
					r.err = err
					r.cons.Stop()
					return
				}
			}
		}
		if r.w.Producer != nil {
			if err := r.startProducer(ctx, epoch, progress, wd); err != nil {
				r.err = err
				if r.cons != nil {
					r.cons.Stop()
				}
			}
		}
	}()
}

// producersDone reports whether every producer of the scenario has ended
// (a late one has not while it waits to start).
func producersDone(runs []*running) bool {
	for _, o := range runs {
		if o.w.Producer == nil {
			continue
		}
		if o.late != nil {
			select {
			case <-o.late:
			default:
				return false
			}
		}
		if o.prod == nil {
			continue
		}
		select {
		case <-o.prod.Done():
		default:
			return false
		}
	}
	return true
}

func (r *running) startProbe(ctx context.Context) {
	r.probeDone = make(chan struct{})
	go func() {
		defer close(r.probeDone)
		r.probeRes, r.probeErr = workload.RunEndToEnd(ctx, *r.w.Probe)
	}()
}

func (r *running) startConsumer(ctx context.Context, epoch time.Time) error {
	spec := *r.w.Consumer
	spec.Epoch = epoch // one clock for every workload of the scenario
	if r.w.Kind == EndToEnd {
		spec.Latest, spec.Latency = true, true
		spec.Records = 0 // set by Finish once the producer is done
	}
	run, err := workload.StartConsumer(ctx, spec)
	if err != nil {
		return fmt.Errorf("workload %q: start consumers: %w", r.w.Name, err)
	}
	r.cons = run
	return nil
}

func (r *running) startProducer(ctx context.Context, epoch time.Time, progress *atomic.Int64, wd *watchdog) error {
	spec := *r.w.Producer
	spec.Epoch = epoch // one clock for every workload of the scenario
	spec.Progress = progress
	if wd != nil {
		spec.OnStall = chainStall(spec.OnStall, wd.stalled)
	}
	spec.StampSent = spec.StampSent || r.w.Kind == EndToEnd
	run, err := workload.StartProducer(ctx, spec)
	if err != nil {
		return fmt.Errorf("workload %q: start producers: %w", r.w.Name, err)
	}
	r.prod = run
	return nil
}

// waitReady waits until every consumer has its first assignment.
func waitReady(ctx context.Context, runs []*running) error {
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	for _, r := range runs {
		if r.cons == nil {
			continue
		}
		select {
		case <-r.cons.Ready():
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return fmt.Errorf("workload %q: consumers had no partitions assigned after %s", r.w.Name, readyTimeout)
		}
	}
	return nil
}

// finish waits for the workload to end; abort stops consumers at once
// (a workload of the scenario failed to start).
func (r *running) finish(abort bool) {
	acked := int64(-1)
	if r.late != nil {
		<-r.late // started (or given up) before it can be waited for
	}
	errs := []error{r.err} // a late start's failure
	if r.cons != nil {
		// Wait for the consumers from now on (Wait may be called again
		// below): after Ctrl-C they close while the producers drain, not
		// after them.
		go r.cons.Wait()
	}
	if r.probeDone != nil {
		<-r.probeDone
		errs = append(errs, r.probeErr)
	}
	if r.prod != nil {
		res, err := r.prod.Wait()
		r.prodRes = res
		errs = append(errs, err)
		if res != nil {
			acked = res.Acked
		}
	}
	if r.cons != nil {
		switch {
		case abort || r.w.Kind == EndToEnd && acked < 0:
			r.cons.Stop()
		case r.w.Kind == EndToEnd:
			r.cons.Finish(acked)
			t := time.AfterFunc(drainTimeout, r.cons.Stop)
			defer t.Stop()
		}
		res, err := r.cons.Wait()
		r.consRes = res
		errs = append(errs, err)
		if r.w.Kind == Consume && !r.w.ShortOK && res != nil && r.w.Consumer.Records > 0 && res.Records < r.w.Consumer.Records && res.Reason == workload.StopIdle {
			// Stopped by the idle timeout short of its records: the run did
			// not measure what was asked (a rebalance, or a slow producer).
			errs = append(errs, fmt.Errorf("consumed %d of %d records: no record arrived for %s", res.Records, r.w.Consumer.Records, r.w.Consumer.IdleTimeout))
		}
		if r.w.Kind == EndToEnd && res != nil && acked >= 0 && res.Records < acked {
			errs = append(errs, fmt.Errorf("end-to-end consumer read %d of the %d acknowledged records within %s", res.Records, acked, drainTimeout))
		}
	}
	r.err = errors.Join(errs...)
}
