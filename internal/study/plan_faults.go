package study

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/faults/timeline"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/verify"
	"github.com/kbench/kbench/internal/workload"
)

// Bounds of the steps after a repeat with faults.
const (
	// healTimeout bounds bringing brokers back and the measurements still
	// running (ISR recovery) after the workloads ended.
	healTimeout = 3 * time.Minute
	// interruptMeasureGrace is how long the measurements after the
	// workloads go on once the run is interrupted.
	interruptMeasureGrace = 5 * time.Second
	// verifyIdle stops reading a topic back when nothing arrives for this
	// long.
	verifyIdle = time.Minute
	// gapSlack lets a gap that began just before a fault (the last
	// acknowledgement before it) belong to it.
	gapSlack = time.Second
)

// checks are a repeat's faults and verified workloads.
type checks struct {
	faults []faults.Fault
	actor  faults.Actor
	// verify and latest are by workload name: a distributed worker runs
	// a slice of the scenario's workloads. latest: judged by latest value
	// per key (a compacted topic).
	verify map[string]bool
	latest map[string]bool
	// shareable: a worker's records of it can be checked from its shared
	// ledger (record by record, not in transactions).
	shareable map[string]bool
	logf      func(format string, args ...any)
	// readBack, if set, waits until the topics may be read back (a
	// distributed run: every worker's workloads ended and worker 0's
	// faults healed).
	readBack func(ctx context.Context) error
	// share, if set, shares a verified workload's ledger while the repeat
	// runs (a distributed worker: worker 0 checks the records of a worker
	// it lost from what it shared); stop shares the rest, before the
	// read-back.
	share func(ctx context.Context, workload string, l *verify.Ledger) (stop func())
	// abort ends the heal after the workloads (a second Ctrl-C): nil
	// never.
	abort context.Context
}

func (c *checks) active() bool {
	if len(c.faults) > 0 {
		return true
	}
	for _, v := range c.verify {
		if v {
			return true
		}
	}
	return false
}

// checksOf says what a plan scenario's repeats check.
func checksOf(p *plan.Plan, sc *plan.Scenario, actor faults.Actor, logf func(string, ...any)) *checks {
	c := &checks{faults: sc.Faults, actor: actor, logf: logf, verify: map[string]bool{}, latest: map[string]bool{}, shareable: map[string]bool{}}
	for _, w := range sc.Workloads {
		c.verify[w.Name], c.latest[w.Name] = w.Verify, w.LatestPerKey
		c.shareable[w.Name] = shareable(w)
	}
	return c
}

// tracked is one producing workload followed record by record.
type tracked struct {
	index  int
	topic  string
	ledger *verify.Ledger
	verify bool
	reader *verify.Reader
	// topicID is the topic's id at the start (zero: unknown): another
	// run that recreates the topic gives it a new one.
	topicID [16]byte
}

// runChecked runs a repeat with its fault timeline and verification:
// faults from the producers' start; after the workloads, brokers are
// brought back and measurements finish; then every verified workload's
// topic is read back with a fresh client.
func runChecked(ctx context.Context, run runner.RunFunc, sc runner.Scenario, index int, ck *checks) result.Repeat {
	sc.Workloads = append([]runner.Workload(nil), sc.Workloads...)
	var tr []*tracked
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		ts, ok := w.Spec.(workload.Tracked)
		if !ok {
			continue // verification follows the records of specs that can be tracked
		}
		v := ck.verify[w.Name]
		if !v && len(ck.faults) == 0 {
			continue
		}
		t := &tracked{index: i, topic: ts.Producer().Topic, ledger: verify.New(v), verify: v}
		if v && ck.latest[w.Name] {
			t.ledger.JudgeLatestPerKey()
		}
		w.Spec = ts.Track(t.ledger.Tracker)
		tr = append(tr, t)
	}
	sent := newSendEnd()
	if len(ck.faults) > 0 {
		for i := range sc.Workloads {
			w := &sc.Workloads[i]
			if p, ok := w.Spec.(workload.Producing); ok {
				w.Spec = p.WithProducer(sent.add(p.Producer()))
			}
		}
	}
	var unshare []func()
	var tl *timeline.Timeline
	var startErr error
	var start time.Time
	var ending sync.WaitGroup
	stopped := make(chan struct{})
	onStart := sc.OnStart
	sc.OnStart = func(topics []kadmin.TopicInfo) {
		if onStart != nil {
			onStart(topics)
		}
		start = time.Now()
		sent.begin()
		for _, t := range tr {
			t.ledger.SetStart(start)
			if t.verify {
				t.topicID, _, _ = verify.TopicID(ctx, sc.Admin, t.topic) // unknown (zero) on error: not compared
				r, err := verify.StartReader(ctx, t.ledger, sc.Admin, t.topic, time.Second)
				if err != nil {
					startErr = err
					continue
				}
				t.reader = r
				if w := sc.Workloads[t.index]; ck.share != nil && ck.shareable[w.Name] {
					unshare = append(unshare, ck.share(ctx, w.Name, t.ledger))
				}
			}
		}
		if len(ck.faults) > 0 {
			names := make([]string, 0, len(topics))
			for _, ti := range topics {
				names = append(names, ti.Name)
			}
			var err error
			tl, err = timeline.Start(ctx, timeline.Config{Faults: ck.faults, Actor: ck.actor, Admin: sc.Admin, Topics: names, Logf: ck.logf}, start)
			if err != nil {
				startErr = err
			}
			if tl != nil && sent.known() {
				// The timeline ends, and heals, when sending ends.
				ending.Add(1)
				go func() {
					defer ending.Done()
					select {
					case <-sent.ended:
						hctx, cancel := healContext(ctx, ck.abort)
						defer cancel()
						tl.End(hctx)
					case <-stopped:
					}
				}()
			}
		}
	}
	rep := runRepeat(ctx, run, sc, index)
	close(stopped)
	sent.stop()
	for _, stop := range unshare {
		stop() // every acknowledgement is in: the rest of the ledger
	}
	if startErr != nil && rep.Error == "" {
		rep.Status, rep.Error = result.StatusFailed, startErr.Error()
	}
	end := time.Since(start)

	// Faults first: brokers must be back before the topic is read.
	var frs []timeline.Result
	if tl != nil {
		hctx, cancel := healContext(ctx, ck.abort)
		tl.End(hctx) // the heal outlives a first Ctrl-C
		// The measurements still running (an election, an ISR recovery)
		// get interruptMeasureGrace after a Ctrl-C, not their own 2
		// minutes: regression: Ctrl-C after a pause no election ever
		// followed waited the whole 120 s before writing.
		mctx, mcancel := context.WithCancel(hctx)
		stop := context.AfterFunc(ctx, func() { time.AfterFunc(interruptMeasureGrace, mcancel) })
		frs = tl.Finish(mctx)
		stop()
		mcancel()
		cancel()
		if ck.abort != nil && ck.abort.Err() != nil {
			ck.logf("the heal was cut short by a second Ctrl-C: brokers or links the plan broke may still be broken; check the cluster before the next run (a local one: kbench cluster status --name NAME)")
		}
	}
	ending.Wait()
	rep.Faults = faultResults(frs, tr, end)
	for i := range rep.Faults {
		if happened(frs[i]) {
			rep.Faults[i].Time = start.Add(frs[i].At)
		}
	}
	for _, f := range rep.Faults {
		if f.Status == timeline.StatusFailed && rep.Error == "" {
			rep.Status = result.StatusFailed
			rep.Error = fmt.Sprintf("fault %s: %s", faultLabel(f), f.Error)
		}
	}
	var gateErr error
	if ck.readBack != nil {
		gateErr = ck.readBack(ctx)
	}
	for _, t := range tr {
		if !t.verify {
			continue
		}
		if gateErr != nil {
			w := sc.Workloads[t.index]
			rep.Verification = append(rep.Verification, result.Verification{Workload: w.Name, Topic: t.topic, StartedAt: start,
				Acked: t.ledger.Acked(), Error: fmt.Sprintf("not read back: %v", gateErr)})
			continue
		}
		v, replaced := verification(ctx, sc, t)
		v.StartedAt = start
		if replaced {
			// The cause of whatever else failed (records refused once
			// the topic went): said first.
			rep.Status = result.StatusFailed
			rep.Error = strings.TrimSuffix(fmt.Sprintf("workload %q: %s; %s", v.Workload, v.Error, rep.Error), "; ")
		} else if !v.Passed && rep.Error == "" && ctx.Err() == nil {
			rep.Status = result.StatusFailed
			rep.Error = fmt.Sprintf("workload %q: verification: %s", v.Workload, verificationProblem(v))
		}
		rep.Verification = append(rep.Verification, v)
	}
	if gateErr != nil && rep.Error == "" && ctx.Err() == nil {
		rep.Status, rep.Error = result.StatusFailed, fmt.Sprintf("verification: the topics were not read back: %v", gateErr)
	}
	acks := producerAcks(rep.Verification)
	for i := range rep.Faults {
		rep.Faults[i].Outcome = cutOutcome(rep.Faults[i], frs[i].Cut, acks)
	}
	return rep
}

// healContext bounds bringing brokers back and the measurements after the
// workloads: it outlives ctx (a first Ctrl-C still heals, so that nothing
// stays broken for the next run) but not abort (a second Ctrl-C: the
// results are written now, the cluster left as it is, and said so).
func healContext(ctx, abort context.Context) (context.Context, context.CancelFunc) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healTimeout)
	if abort == nil {
		return hctx, cancel
	}
	stop := context.AfterFunc(abort, cancel)
	return hctx, func() { stop(); cancel() }
}

func faultLabel(f result.Fault) string {
	if f.Name != "" {
		return f.Name
	}
	return f.Action + " " + f.Target
}

// verification reads t's topic back and judges it by the producer's
// settings; replaced says the topic was deleted (and maybe made again)
// under the run, so nothing could be read back.
func verification(ctx context.Context, sc runner.Scenario, t *tracked) (_ result.Verification, replaced bool) {
	w := sc.Workloads[t.index]
	v := result.Verification{Workload: w.Name, Topic: t.topic, Acks: w.Settings["acks"], Idempotent: w.Settings["enable.idempotence"] == "true"}
	if t.reader != nil {
		for _, p := range t.reader.Stop() {
			v.Unseen = append(v.Unseen, result.UnseenPoint{Seconds: p.At.Seconds(), Unseen: p.Unseen, Acked: p.Acked})
		}
	}
	v.Acked = t.ledger.Acked()
	if ctx.Err() != nil {
		v.Error = "not checked: the run was interrupted"
		return v, false
	}
	if now, exists, err := verify.TopicID(ctx, sc.Admin, t.topic); err == nil {
		if why := verify.Replaced(t.topic, t.topicID, now, exists); why != "" {
			v.Error = why
			return v, true
		}
	}
	var rep *verify.Report
	var err error
	if t.ledger.LatestPerKey() {
		if why := notCompacted(ctx, sc.Admin, t.topic); why != "" {
			v.Error = why
			return v, false
		}
		rep, err = verify.CheckCompacted(ctx, t.ledger, sc.Admin, t.topic, verifyIdle, cleanerWait)
	} else {
		rep, err = verify.Check(ctx, t.ledger, sc.Admin, t.topic, verifyIdle)
	}
	if err != nil {
		v.Error = err.Error()
		return v, false
	}
	fillVerification(&v, rep, t.ledger)
	return v, false
}

// fillVerification sets v from the read-back's report of ledger l, and
// judges it.
func fillVerification(v *result.Verification, rep *verify.Report, l *verify.Ledger) {
	v.Foreign = rep.Foreign
	v.ReadCommitted, v.Aborted, v.AbortedRead = l.Transactional(), rep.Aborted, rep.AbortedRead
	if rep.LatestPerKey {
		v.LatestPerKey = &result.LatestPerKey{Keys: rep.Keys, LatestLost: rep.LatestLost, Replaced: rep.Replaced, Superseded: rep.Superseded, CleanerWaitSeconds: rep.CleanerWait.Seconds()}
	}
	v.Acked, v.Read = rep.Acked, rep.Read
	if rep.LatestPerKey {
		v.Acked = l.Acked() // every record; the keys' newest are what is owed
	}
	v.Lost, v.Duplicated, v.OutOfOrder, v.Unacknowledged = rep.Lost, rep.Duplicated, rep.OutOfOrder, rep.Unacknowledged
	for _, p := range rep.Partitions {
		if p.Lost+p.Duplicated+p.OutOfOrder+p.Unacked == 0 {
			continue
		}
		v.Partitions = append(v.Partitions, result.VerificationPartition{
			Partition: p.Partition, Acked: p.Acked, Lost: p.Lost, Duplicated: p.Duplicated, OutOfOrder: p.OutOfOrder, Unacknowledged: p.Unacked,
			FirstLost: p.FirstLost, FirstDuplicated: p.FirstDuplicated, FirstOutOfOrder: p.FirstOutOfOrder, FirstUnacknowledged: p.FirstUnacknowledged,
		})
	}
	judgeVerification(v)
}

// judgeVerification applies Kafka's system tests' rules: acknowledged
// records lost fail a run whose producer waited for every in-sync replica
// (acks=all); duplicates and reordering fail it only with idempotence on;
// records that landed without an acknowledgement never do (a timed-out
// send may still have been written).
func judgeVerification(v *result.Verification) {
	v.Passed = true
	var notes []string
	if v.Foreign > 0 {
		notes = append(notes, result.ForeignNote(v.Foreign))
	}
	if v.Lost > 0 {
		if v.Acks == "all" {
			v.Passed = false
		} else {
			notes = append(notes, fmt.Sprintf("%d acknowledged records lost: acks=%s acknowledges before replication, so a failed leader takes them with it", v.Lost, v.Acks))
		}
	}
	if v.Duplicated+v.OutOfOrder > 0 {
		if v.Idempotent {
			v.Passed = false
		} else {
			notes = append(notes, "duplicates and reordering are allowed with idempotence off (retries may write a record again or out of order)")
		}
	}
	if v.Unacknowledged > 0 {
		notes = append(notes, fmt.Sprintf("%d records were written although their send failed or was not answered", v.Unacknowledged))
	}
	if l := v.LatestPerKey; l != nil {
		notes = append(notes, fmt.Sprintf("judged by the newest value of each of %d keys (a compacted topic): %d of them lost", l.Keys, l.LatestLost))
		if l.Replaced > 0 {
			notes = append(notes, fmt.Sprintf("%d key(s) whose newest value another writer's later record replaced (a tombstone or an update): not this run's to judge", l.Replaced))
		}
		if l.Superseded > 0 {
			notes = append(notes, fmt.Sprintf("%d older value(s) of this run's keys were still in the topic after %.0f s (compaction never cleans the segment being written, and waits min.compaction.lag.ms)", l.Superseded, l.CleanerWaitSeconds))
		}
	}
	if v.AbortedRead > 0 {
		v.Passed = false // read_committed promises committed records only
	} else if v.Aborted > 0 {
		notes = append(notes, fmt.Sprintf("read back as a read_committed consumer: none of the %d records of aborted transactions was read", v.Aborted))
	}
	v.Note = strings.Join(notes, "; ")
}

func verificationProblem(v result.Verification) string {
	if v.Error != "" {
		return v.Error
	}
	var parts []string
	if v.Lost > 0 && v.Acks == "all" {
		parts = append(parts, fmt.Sprintf("%d acknowledged records lost with acks=all", v.Lost))
	}
	if v.Idempotent && v.Duplicated > 0 {
		parts = append(parts, fmt.Sprintf("%d duplicated with idempotence on", v.Duplicated))
	}
	if v.Idempotent && v.OutOfOrder > 0 {
		parts = append(parts, fmt.Sprintf("%d out of order with idempotence on", v.OutOfOrder))
	}
	if v.AbortedRead > 0 {
		parts = append(parts, fmt.Sprintf("%d records of aborted transactions read by a read_committed consumer", v.AbortedRead))
	}
	return strings.Join(parts, ", ")
}

// faultResults converts the timeline's results and gives each fault the
// acknowledgement gaps that began around it: a gap belongs to the first
// fault that happened during it.
func faultResults(frs []timeline.Result, tr []*tracked, end time.Duration) []result.Fault {
	out := make([]result.Fault, len(frs))
	order := make([]int, len(frs))
	for i, f := range frs {
		order[i] = i
		out[i] = result.Fault{
			Name: f.Name, Action: f.Action, Target: f.Target, Broker: f.Broker,
			AtSeconds: f.At.Seconds(), FiredAtSeconds: f.Fired.Seconds(), ActionMs: ms(f.Took),
			ElectionMs: msPtr(f.Election), ISRShrunkMs: msPtr(f.ISRShrunk), ISRRecoveredMs: msPtr(f.ISRRecovered),
			ElectionNote: f.ElectionNote, ISRNote: f.ISRNote, Note: f.Note,
			Status: f.Status, Error: f.Error, Output: f.Output,
			BrokerReplicas: f.Replicas, PlanReplicas: f.PlanReplicas,
		}
		if f.ElectionTimedOut {
			out[i].TimedOut = append(out[i].TimedOut, "election")
		}
		if f.ISRRecoveredTimedOut {
			out[i].TimedOut = append(out[i].TimedOut, "isr_recovered")
		}
		for _, m := range f.Affected {
			out[i].Partitions = append(out[i].Partitions, result.FaultPartition{Topic: m.Topic, Partition: m.Partition, From: m.From, To: m.To})
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return frs[order[a]].At < frs[order[b]].At })
	for _, t := range tr {
		for _, g := range t.ledger.Gaps(end) {
			for _, i := range order {
				f := frs[i]
				if f.Status != timeline.StatusDone || !f.Gaps {
					continue
				}
				if f.At+gapSlack < g.From || f.At > g.To {
					continue
				}
				addGap(&out[i], t.topic, g)
				break
			}
		}
	}
	return out
}

// happened reports whether a fault's time came (done or failed), so that
// its time means something.
func happened(f timeline.Result) bool {
	return f.Status == timeline.StatusDone || f.Status == timeline.StatusFailed
}

func addGap(f *result.Fault, topic string, g verify.Gap) {
	l := ms(g.Length())
	if f.UnavailableMs == nil || l > *f.UnavailableMs {
		f.UnavailableMs = &l
	}
	for k := range f.Partitions {
		p := &f.Partitions[k]
		if p.Topic == topic && p.Partition == g.Partition {
			if p.UnavailableMs == nil || l > *p.UnavailableMs {
				p.UnavailableMs = &l
			}
			return
		}
	}
	f.Partitions = append(f.Partitions, result.FaultPartition{Topic: topic, Partition: g.Partition, From: -1, To: -1, UnavailableMs: &l})
}

func msPtr(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	v := ms(*d)
	return &v
}

// cleanerWait bounds how long a compacted topic's read-back waits for the
// cleaner to remove older values before judging the newest ones.
const cleanerWait = time.Minute

// notCompacted says why a topic judged by latest value per key cannot be
// ("": it is compacted): the plan checks the topics it creates, this the
// existing ones.
func notCompacted(ctx context.Context, opts []kgo.Opt, topic string) string {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return ""
	}
	defer cl.Close()
	rcs, err := kadm.NewClient(cl).DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return "" // the read-back will say what is wrong
	}
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Key == "cleanup.policy" && !strings.Contains(c.MaybeValue(), "compact") {
				return fmt.Sprintf("not checked: latest_per_key judges a compacted topic, and %s has cleanup.policy=%s; give it cleanup.policy: compact", topic, c.MaybeValue())
			}
		}
	}
	return ""
}
