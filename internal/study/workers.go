package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/wallclock"
	"github.com/kbench/kbench/internal/workload"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Distributed makes a study one worker of a plan that several kbench
// processes run (kbench run --workers): each runs its slice of every
// scenario (workload.Sliced), they meet at two barriers per repeat on the
// run's control topic, and worker 0 merges their result slices exactly
// (result.MergeRepeats) into the document. Worker 0 alone prepares topics
// and runs the plan's faults; a workload that cannot be split runs whole
// on worker 0.
type Distributed struct {
	Run   coord.Run
	Coord coord.Options
	// Keep leaves the run's control and results topics on the cluster,
	// for kbench collect.
	Keep bool
	// Join joins the run (nil: coord.Join, through the cluster under
	// test; tests give an in-memory coordinator's).
	Join JoinFunc
}

// Names on the results topic: the run's header (the document before its
// repeats, with the plan) and each repeat's slices.
const headerName = "header"

func sliceName(scenario, repeat int) string { return fmt.Sprintf("s%d.r%d", scenario, repeat) }

// checkDistributed refuses what a distributed run cannot do yet, before
// anything starts.
func checkDistributed(p *plan.Plan, scenarios []plan.Scenario, d *Distributed) error {
	n := d.Run.Workers
	if p.Cluster.Bootstrap == "" && p.Cluster.Name == "" {
		return userr.Errorf("--workers %d: the plan names no cluster, and a local cluster that one worker starts cannot be reached by the others; give the cluster every worker reaches: --set cluster.bootstrap=HOST:PORT", n)
	}
	if p.Watch != nil {
		return userr.Errorf("watch cannot run with --workers %d yet (every worker would watch the same groups); run the plan that watches them on one machine", n)
	}
	for _, sc := range scenarios {
		if len(sc.BrokerConfigs) > 0 {
			return userr.Errorf("scenario %s: cluster.broker_configs cannot run with --workers %d yet (the settings would have to change between the workers' barriers); run the sweep on one machine", sc.Name, n)
		}
		for _, w := range sc.Workloads {
			switch {
			case w.Backlog > 0:
				return userr.Errorf("scenario %s, workload %s: backlog cannot run with --workers %d yet (each worker knows only what its own producers wrote); give start_after: a time instead", sc.Name, w.Name, n)
			case w.AfterWorkload != "":
				return userr.Errorf("scenario %s, workload %s: after_workload cannot run with --workers %d yet (each worker sees only its own share of %s end); give start_after: a time instead", sc.Name, w.Name, n, w.AfterWorkload)
			}
		}
	}
	return nil
}

// sliceScenario is worker index's part of a built scenario (of workers):
// its slice of each workload that can be split, the others whole on worker
// 0 only, and the topics prepared by worker 0 only.
func sliceScenario(sc runner.Scenario, index, of int) (runner.Scenario, error) {
	ws := sc.Workloads
	sc.Workloads = nil
	for _, w := range ws {
		s, ok := w.Spec.(workload.Sliced)
		if !ok {
			if index == 0 {
				sc.Workloads = append(sc.Workloads, w)
			}
			continue
		}
		spec, runs, err := s.Slice(index, of)
		if err != nil {
			return sc, userr.Errorf("scenario %s, workload %s: %v; run it on one machine", sc.Name, w.Name, err)
		}
		if runs {
			w.Spec = spec
			sc.Workloads = append(sc.Workloads, w)
		}
	}
	if index != 0 {
		sc.Topics = nil
	}
	return sc, nil
}

// worker is a study's place in a distributed run.
type worker struct {
	d        *Distributed
	w        Coordinator
	admin    []kgo.Opt
	progress io.Writer
	joined   time.Time
	host     string
	merge    *sliceMerger // worker 0's
	// stopped is worker 0's stop of a repeat, once this worker (not 0)
	// read it: the rest of the plan is not run.
	stopped error
	// foreign is how many foreign records this worker said it ignored.
	foreign int
	// toldLost are the lost workers this worker said so of.
	toldLost map[int]bool
	// verifies says that the next repeat reads its topics back
	// (verify): every worker meets at a third barrier before it does,
	// the gate (readBack), so no read-back starts before every worker's
	// producers ended and worker 0 healed the faults.
	verifies bool
	gate     *readBackGate
	// sharing is the repeat whose ledgers this worker shares now;
	// lostChecks, by scenario (1-based), the workloads worker 0 checks a
	// lost worker's records of.
	sharing    string
	lostChecks map[int][]lostCheck
	// late is how long after the common start this worker released the
	// repeat's workloads (nil: it did not reach the start).
	late *time.Duration
}

// readBackGate is one repeat's barrier before its read-back.
type readBackGate struct {
	name string
	met  bool
}

// readBack waits at the repeat's read-back barrier (RepeatEnv.ReadBack).
func (wk *worker) readBack(ctx context.Context) error {
	g := wk.gate
	if g == nil {
		return nil
	}
	g.met = true
	if _, _, err := wk.w.Barrier(ctx, g.name); err != nil {
		return fmt.Errorf("the workers' barrier before the read-back: %w", err)
	}
	return nil
}

// sayLost says, once per worker, that a worker was lost and what that
// does to the next repeats' consumer groups: the lost worker's consumers
// stay members until their session times out, and the group assigns no
// partition until then.
func (wk *worker) sayLost(i, r int) {
	for _, k := range wk.w.Lost() {
		wk.sayWorkerLost(i, r, k)
	}
}

// sayMissing says it of the workers a barrier began without: a worker
// other than 0 does not judge the others lost itself (worker 0 does), and
// learns of a loss from the members worker 0 released the barrier with.
func (wk *worker) sayMissing(i, r int, members []int) {
	if members == nil {
		return
	}
	for k := range wk.d.Run.Workers {
		if !slices.Contains(members, k) {
			wk.sayWorkerLost(i, r, k)
		}
	}
}

// sayWorkerLost says once that worker k was lost, and what that does to
// the next repeats' consumer groups.
func (wk *worker) sayWorkerLost(i, r, k int) {
	if wk.toldLost[k] {
		return
	}
	if wk.toldLost == nil {
		wk.toldLost = map[int]bool{}
	}
	wk.toldLost[k] = true
	fmt.Fprintf(wk.progress, "kbench: scenario %d, repeat %d: worker %d was lost: its consumers stay members of their groups until their session times out (session.timeout.ms, 45 s by default), and a group assigns no partition until then; the readers wait for their partitions (at most %s) and no producer starts before every reader is assigned\n",
		i, r, k, runner.ReadyTimeout)
}

// over is why the run is over for this worker (nil: it goes on): worker 0
// left, ended the run, was lost, or stopped it.
func (wk *worker) over() error {
	if err := wk.w.Over(); err != nil {
		return err
	}
	if wk.stopped != nil {
		return fmt.Errorf("%w: %v", coord.ErrRunOver, wk.stopped)
	}
	return nil
}

// sayForeign says, once more arrived, how many records of the run's
// topics this worker ignored because no worker of the run wrote them.
func (wk *worker) sayForeign() {
	n, first := wk.w.Foreign()
	if n <= wk.foreign {
		return
	}
	wk.foreign = n
	fmt.Fprintf(wk.progress, "kbench: ignored %d record(s) on the run's topics that no worker of run %s wrote (the first: %s): another client writes to them, or they are damaged\n", n, wk.d.Run.ID, first)
}

// join slices the session's scenarios to this worker's part and joins
// the run.
func (s *session) join(ctx context.Context, d *Distributed) error {
	idle := 0
	lostChecks := map[int][]lostCheck{}
	s.unsliced = slices.Clone(s.built)
	for i := range s.built {
		lostChecks[i+1] = lostChecksOf(&s.scenarios[i], s.built[i])
		sc, err := sliceScenario(s.built[i], d.Run.Index, d.Run.Workers)
		if err != nil {
			return err
		}
		if len(sc.Workloads) == 0 {
			idle++
		}
		s.built[i] = sc
	}
	if idle > 0 {
		fmt.Fprintf(s.opt.Progress, "kbench: worker %d runs no client in %d of %d scenario(s): a workload is split by whole clients, and it has fewer clients than workers (raise its clients: to use every worker)\n",
			d.Run.Index, idle, len(s.built))
	}
	co := d.Coord
	co.KeepTopics = d.Keep
	co.Log = func(line string) { fmt.Fprintln(s.opt.Progress, line) }
	join := d.Join
	if join == nil {
		join = joinCluster
	}
	w, err := join(ctx, s.built[0].Admin, d.Run, co)
	if err != nil {
		return err
	}
	s.worker = newWorker(d, w, s.built[0].Admin, s.opt.Progress)
	s.worker.lostChecks = lostChecks
	c := w.Clock()
	fmt.Fprintf(s.opt.Progress, "kbench: worker %d of %d on run %s; clock %+.1f ms ± %.1f ms against the control partition's leader\n",
		d.Run.Index, d.Run.Workers, d.Run.ID, c.OffsetMs, c.UncertaintyMs)
	if k := wallclock.TestOffset(); k != 0 {
		fmt.Fprintf(s.opt.Progress, "kbench: test hook %s=%s: this worker's clock readings are shifted by %s\n", wallclock.EnvTestOffset, k, k)
	}
	return nil
}

// newWorker is a study's place in run d once it joined through w; worker
// 0 merges the slices.
func newWorker(d *Distributed, w Coordinator, admin []kgo.Opt, progress io.Writer) *worker {
	host, _ := os.Hostname()
	wk := &worker{d: d, w: w, admin: admin, progress: progress, joined: time.Now(), host: host}
	if d.Run.Index == 0 {
		wk.merge = newSliceMerger(d.Run.ID, d.Run.Workers)
	}
	return wk
}

// publishHeader writes the run's document before its repeats, with the
// plan, for kbench collect (worker 0).
func (wk *worker) publishHeader(ctx context.Context, doc *result.Document, p *plan.Plan) error {
	h := *doc
	run := *doc.Plan
	run.Scenarios = nil
	run.PlanYAML = string(p.Redacted())
	run.Distributed = &result.Distributed{RunID: wk.d.Run.ID, Workers: wk.d.Run.Workers}
	h.Plan = &run
	data, err := json.Marshal(&h)
	if err != nil {
		return fmt.Errorf("encode the run's header: %w", err)
	}
	return wk.w.Publish(ctx, headerName, data)
}

// repeat runs this worker's slice of repeat r of scenario i (1-based)
// between the run's barriers, publishes it, and on worker 0 returns the
// merge of every worker's slice and tells the others its outcome; the
// others return their own slice with that outcome, so that every
// worker's exit code says the run's.
func (wk *worker) repeat(ctx context.Context, i, r int, sc runner.Scenario, run func(context.Context, runner.Scenario) result.Repeat) result.Repeat {
	rep, _ := wk.round(ctx, i, r, sliceName(i, r), wk.lostChecks[i], sc, run)
	return rep
}

// round is one run of every worker's slice named name (a repeat, or a
// probe of a rate search) in repeat r of scenario i: the barriers, this
// worker's run, its slice published, and on worker 0 every slice merged
// and the outcome told. complete says that the merge holds every worker's
// slice (worker 0; always true on the others); checks are the
// verifications worker 0 takes over from a lost worker.
func (wk *worker) round(ctx context.Context, i, r int, name string, checks []lostCheck, sc runner.Scenario, run func(context.Context, runner.Scenario) result.Repeat) (rep result.Repeat, complete bool) {
	defer wk.sayForeign()
	wk.sayLost(i, r)
	var metTopics, metStart bool
	var members []int
	topics := func(ctx context.Context) error {
		metTopics = true
		_, m, err := wk.w.Barrier(ctx, name+".topics")
		if err == nil {
			wk.sayMissing(i, r, m)
		}
		return err
	}
	wk.late = nil
	start := func(ctx context.Context) (time.Time, error) {
		metStart = true
		at, m, err := wk.w.Barrier(ctx, name+".start")
		members = m
		if err != nil {
			return at, err
		}
		return wk.waitStart(ctx, wallclock.Process(at))
	}
	// Every worker's intervals fall on the same grid: whole intervals
	// since the Unix epoch on the reference clock, whatever its own
	// clock's offset.
	sc.Epoch = time.Unix(0, 0).Add(-wk.toReference())
	sc.TopicsReady, sc.Start = topics, start
	wk.gate, wk.sharing = nil, name
	if wk.verifies {
		wk.gate = &readBackGate{name: name + ".checked"}
	}
	rctx, stop := context.WithCancelCause(ctx)
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		wk.watch(ctx, rctx, stop, name)
	}()
	if len(sc.Workloads) == 0 {
		// No client of this scenario is this worker's: it only keeps the
		// others company at the barriers.
		rep = result.Repeat{Index: r, StartedAt: time.Now(), Status: result.StatusOK}
		err := topics(rctx)
		if err == nil {
			_, err = start(rctx)
		}
		if err != nil {
			rep.Status, rep.Error = result.StatusFailed, err.Error()
		}
		rep.EndedAt = time.Now()
	} else {
		rep = run(rctx, sc)
	}
	var stopped error // worker 0 stopped the repeat before it ended
	if rctx.Err() != nil && ctx.Err() == nil && wk.w.Stopped(name) != nil {
		stopped = context.Cause(rctx)
	}
	stop(nil)
	watch.Wait()
	if stopped != nil {
		wk.stopped = stopped
		rep.Status, rep.Error = result.StatusInterrupted, stopped.Error()
	}
	if err := wk.w.Over(); err != nil {
		return rep, true // nobody gathers it
	}
	// A repeat that failed before a barrier: worker 0 calls the repeat off
	// (the others must not run on topics it did not prepare); another
	// worker still arrives, so that nobody waits for it.
	if wk.d.Run.Index == 0 {
		reason := rep.Error
		if reason == "" {
			reason = "worker 0 ended before the barrier"
		}
		if !metTopics {
			_ = wk.w.CallOff(ctx, name+".topics", reason)
		}
		if !metStart {
			_ = wk.w.CallOff(ctx, name+".start", reason)
		}
		if wk.gate != nil && !wk.gate.met {
			_ = wk.w.CallOff(ctx, wk.gate.name, reason)
		}
	} else if stopped == nil {
		if !metTopics {
			_ = topics(ctx)
		}
		if !metStart {
			_, _ = start(ctx)
		}
		if wk.gate != nil && !wk.gate.met {
			// No verified producer of this worker's (or it failed before
			// the read-back): it still meets the others.
			_ = wk.readBack(ctx)
		}
	}
	pctx, cancel := afterInterrupt(ctx, 10*time.Second)
	defer cancel()
	if err := wk.publish(pctx, name, rep); err != nil && rep.Error == "" {
		rep.Status, rep.Error = result.StatusFailed, err.Error()
	}
	if wk.merge == nil {
		if ctx.Err() != nil {
			return rep, true // interrupted itself: its own outcome, at once
		}
		return wk.judged(pctx, name, rep), true
	}
	if members == nil {
		members = allWorkers(wk.d.Run.Workers)
	}
	got, _, err := wk.w.Slices(pctx, name, members)
	if err != nil && len(got) == 0 {
		rep.Status, rep.Error = result.StatusFailed, fmt.Sprintf("gather the workers' result slices: %v", err)
		_ = wk.w.Judge(ctx, name, coord.Verdict{Status: rep.Status, Error: rep.Error})
		return rep, false
	}
	complete = len(got) == wk.d.Run.Workers
	interrupted := ctx.Err() != nil
	checked := wk.checkLost(pctx, name, checks, members, got)
	merged, err := wk.merge.repeat(r, got, checked, func(k int) (string, string) {
		if interrupted {
			return result.StatusInterrupted, notGathered
		}
		if !slices.Contains(members, k) {
			return result.StatusFailed, "lost before this repeat began; its share is missing from this repeat"
		}
		if gone := wk.w.Gone(k); strings.HasPrefix(gone, "left: ") {
			return result.StatusFailed, "left without a result slice (" + strings.TrimPrefix(gone, "left: ") + "); its share is missing from this repeat"
		}
		return lost(k)
	})
	if err != nil {
		merged = rep
		merged.Status, merged.Error = result.StatusFailed, err.Error()
	}
	_ = wk.w.Judge(ctx, name, coord.Verdict{Status: merged.Status, Error: merged.Error})
	return merged, complete
}

// toReference is how far the reference clock is ahead of time.Now, which
// the engines read: the worker's measured offset, plus the test hook's
// (the offset was measured on wallclock.Now, the engines' clock is not
// shifted).
func (wk *worker) toReference() time.Duration {
	ms := wk.w.Clock().OffsetMs
	return time.Duration(ms*float64(time.Millisecond)) + wallclock.TestOffset()
}

// waitStart waits for the common start at (on time.Now's clock) and
// records how late this worker released its workloads.
func (wk *worker) waitStart(ctx context.Context, at time.Time) (time.Time, error) {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return at, ctx.Err()
	}
	late := time.Since(at)
	wk.late = &late
	return at, nil
}

// judged is rep with worker 0's outcome of the repeat when that failed
// and rep did not: a worker other than 0 then says the run's outcome, not
// its own share's.
func (wk *worker) judged(ctx context.Context, name string, rep result.Repeat) result.Repeat {
	v, ok := wk.w.AwaitVerdict(ctx, name)
	if !ok || v.Status == result.StatusOK || rep.Status != result.StatusOK {
		return rep
	}
	rep.Status, rep.Error = v.Status, "worker 0's merge of the repeat: "+strings.ReplaceAll(v.Error, "\n", "; ")
	return rep
}

// publish writes this worker's slice of a repeat; one that cannot be
// written (too large, a broker error) is replaced by a failed slice that
// says why, so that worker 0 does not take the worker for lost.
//
// The slice's timestamps are put on the reference clock, so that worker
// 0 merges the workers' intervals on one clock.
func (wk *worker) publish(ctx context.Context, name string, rep result.Repeat) error {
	sd := sliceDoc{Worker: wk.d.Run.Index, Host: wk.host, Clock: wk.w.Clock(),
		ControlBytes: wk.w.ControlBytes(), Seconds: time.Since(wk.joined).Seconds(), Repeat: rep}
	if wk.late != nil {
		ms := float64(wk.late.Microseconds()) / 1000
		sd.StartLateMs = &ms
	}
	data, err := wk.marshalOnReference(&sd)
	if err == nil {
		err = wk.w.Publish(ctx, name, data)
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("publish this worker's result slice: %w", err)
	sd.Repeat = result.Repeat{Index: rep.Index, StartedAt: rep.StartedAt, EndedAt: rep.EndedAt, Status: result.StatusFailed, Error: err.Error()}
	if data, merr := wk.marshalOnReference(&sd); merr == nil {
		_ = wk.w.Publish(ctx, name, data)
	}
	return err
}

// marshalOnReference encodes sd with its repeat's timestamps on the
// reference clock. They are moved there and back: the repeat shares its
// series with the caller's.
func (wk *worker) marshalOnReference(sd *sliceDoc) ([]byte, error) {
	d := wk.toReference()
	result.ShiftTimes(&sd.Repeat, d)
	defer result.ShiftTimes(&sd.Repeat, -d)
	return json.Marshal(sd)
}

// watch ends the repeat (rctx, through stop) when it is over for this
// worker: worker 0 stopped it, left, ended the run or was lost; and on
// worker 0 it tells the others to stop once ctx ends (Ctrl-C), so that
// their records are counted up to the same moment. It returns once rctx
// has ended.
func (wk *worker) watch(ctx, rctx context.Context, stop context.CancelCauseFunc, name string) {
	if wk.d.Run.Index == 0 {
		<-rctx.Done()
		if ctx.Err() != nil {
			_ = wk.w.Stop(ctx, name, "worker 0 was interrupted")
		}
		return
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-rctx.Done():
			return
		case <-t.C:
			err := wk.w.Stopped(name)
			if err == nil {
				err = wk.w.Over()
			}
			if err != nil {
				stop(err)
				return
			}
		}
	}
}

// finish ends this worker's part: worker 0 records the run in the
// document, marks the run over and removes its topics unless kept.
func (wk *worker) finish(ctx context.Context, doc *result.Document, runErr error) {
	wk.sayForeign()
	// Its own bound, interrupted or not: a Ctrl-C while worker 0 waits
	// for the others to leave must not leave the run's topics behind.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	reason := "done"
	if runErr != nil {
		reason = runErr.Error()
	}
	_ = wk.w.Leave(ctx, reason)
	if wk.merge != nil && doc != nil && doc.Plan != nil {
		doc.Plan.Distributed = wk.merge.distributed()
		_ = wk.w.End(ctx)
		wk.w.WaitLeft(ctx)
	}
	wk.w.Close()
	if wk.merge == nil {
		return
	}
	control, results := coord.Topics(wk.d.Run.ID)
	if wk.d.Keep {
		fmt.Fprintf(wk.progress, "kbench: the run's topics %s and %s are kept: kbench collect %s reads them\n", control, results, wk.d.Run.ID)
		return
	}
	if n := wk.merge.notGathered; n > 0 {
		fmt.Fprintf(wk.progress, "kbench: the run's topics %s and %s are kept: %d worker slice(s) were not gathered before the run was interrupted; kbench collect %s reads them once published, then delete the topics\n", control, results, n, wk.d.Run.ID)
		return
	}
	if err := coord.Clean(ctx, wk.admin, wk.d.Run.ID); err != nil {
		fmt.Fprintf(wk.progress, "kbench: could not delete the run's topics %s and %s: %v; delete them by hand\n", control, results, err)
	}
}

// afterInterrupt is ctx, or once it has ended a fresh one bounded by d:
// what was measured is still published and gathered after Ctrl-C.
func afterInterrupt(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

func allWorkers(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
