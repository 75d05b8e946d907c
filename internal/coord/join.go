package coord

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/userr"
)

// Join makes this process worker run.Index of the run: it checks the run,
// creates the run's topics if they are missing, reads what the other
// workers said, refuses a conflicting run, announces itself and waits
// until every worker has (bounded by Options.JoinTimeout). It then
// estimates this worker's clock offset against the control partition's
// leader. opts reach the cluster under test (bootstrap and security).
//
// A worker that joined and then gives up (interrupted, a worker left
// before the run began, or one never came) leaves, so that the others
// stop waiting too; worker 0 then deletes the run's topics unless
// Options.KeepTopics.
func Join(ctx context.Context, opts []kgo.Opt, run Run, o Options) (*Worker, error) {
	if err := run.Check(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	w := &Worker{run: run, opts: o, instance: newInstance(), admin: opts,
		changed: make(chan struct{}), hellos: map[int]message{}, lastSeen: map[int]time.Time{},
		readies: map[string]map[int]int64{}, starts: map[string]message{}, stops: map[string]string{},
		verdicts: map[string]message{}, announced: map[string]message{}, left: map[int]string{}, refused: map[int]message{}, pings: map[int64]int64{}}
	w.control, w.results = Topics(run.ID)
	if err := createTopics(ctx, opts, w.control, w.results, o.Replication); err != nil {
		w.cleanUnannounced(err) // the control topic may be made and the results topic not
		return nil, err
	}
	// Worker 0 reads both control partitions, the others the broadcast
	// one: what a worker other than 0 reads does not grow with the
	// workers. From the start: opts may carry auto.offset.reset=latest.
	reads := map[int32]kgo.Offset{broadcast: kgo.NewOffset().AtStart()}
	if run.Index == 0 {
		reads[toZero] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{w.control: reads}),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// A fetch is answered within a second: worker 0's heartbeats come
		// as often, so in a run it asks no more often than it would.
		// With the 5 s default, a new worker 0 reading both partitions
		// on kfake was seen (about 1 join in 20) to get nothing from its
		// first fetch until the wait passed, beyond a 3 s join bound;
		// never since.
		kgo.FetchMaxWait(time.Second),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), // control records name their partition; results go to 0
		kgo.ProducerBatchCompression(kgo.ZstdCompression()),
		kgo.ProducerBatchMaxBytes(resultMaxBytes),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(30*time.Second),
		kgo.UnknownTopicRetries(-1), // a new topic's leader may not know it yet; the delivery timeout bounds it
	)...)
	if err != nil {
		return nil, fmt.Errorf("coordination client: %w", err)
	}
	w.cl = cl
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.done.Add(1)
	go w.readControl()
	if err := w.join(ctx); err != nil {
		w.abandon(err)
		return nil, err
	}
	return w, nil
}

func (w *Worker) join(ctx context.Context) error {
	// Read what is already there before writing anything: a run that
	// ended, or workers of another plan, must find this worker silent.
	end, err := endOffsetOf(ctx, w.cl, w.control, topicSettle)
	if err != nil {
		return err
	}
	var refusal error // the reason to give the waiting workers
	if err := w.wait(ctx, w.opts.JoinTimeout, "reading the run's control topic", func() (bool, error) {
		h, taken := w.hellos[w.run.Index]
		switch {
		case w.conflict != nil:
			refusal = w.conflict
			return false, w.conflict
		case w.read < end:
			return false, nil
		case w.ended:
			return false, userr.Errorf("run id %q is in use: a run of that id has ended (its topics %s and %s are still there); give a new --run-id, or delete those topics first",
				w.run.ID, w.control, w.results)
		case taken:
			refusal = userr.Errorf("two workers have index %d on run %q (host %s pid %d is there already): give each its own --worker-index, or this run a new --run-id if the other is an earlier run's",
				w.run.Index, w.run.ID, h.Host, h.PID)
			return false, refusal
		}
		return true, nil
	}); err != nil {
		if refusal != nil {
			w.refuse(ctx, refusal)
		}
		return err
	}
	host, _ := os.Hostname()
	if err := w.send(ctx, message{Kind: kindHello, Workers: w.run.Workers, Plan: w.run.Plan, Version: w.run.Version, Host: host, PID: os.Getpid()}); err != nil {
		return err
	}
	w.mu.Lock()
	w.joined = true
	w.mu.Unlock()
	w.done.Add(1)
	go w.heartbeat()
	told := map[int]bool{} // refusals already logged
	if err := w.wait(ctx, w.opts.JoinTimeout, "waiting for every worker to join", func() (bool, error) {
		if w.conflict != nil {
			return false, w.conflict
		}
		for i := range w.hellos {
			if reason, gone := w.left[i]; gone && i != w.run.Index {
				return false, fmt.Errorf("worker %d left run %q before it began (%s)", i, w.run.ID, reason)
			}
		}
		for _, i := range w.missing() {
			if r, ok := w.refused[i]; ok && !told[i] {
				told[i] = true
				w.opts.Log(fmt.Sprintf("kbench: worker %d (host %s pid %d) was refused: %s; waiting for a worker %d that runs this plan", i, r.Host, r.PID, r.Reason, i))
			}
		}
		// Its own hello read back: a second worker with this index that
		// wrote at the same moment is seen by then.
		return len(w.missing()) == 0 && w.hellos[w.run.Index].Instance == w.instance, nil
	}); err != nil {
		if errors.Is(err, errTimeout) {
			w.mu.Lock()
			missing := w.missing()
			why := w.refusals(missing)
			w.mu.Unlock()
			return fmt.Errorf("worker(s) %s of run %q did not join within %s%s: start each with --run-id %s --workers %d --worker-index N (a Kubernetes Indexed Job sets the index)",
				joinInts(missing), w.run.ID, w.opts.JoinTimeout, why, w.run.ID, w.run.Workers)
		}
		return err
	}
	return w.measureClock(ctx)
}

// missing are the indices no worker has announced yet; w.mu held.
func (w *Worker) missing() []int {
	var out []int
	for i := 0; i < w.run.Workers; i++ {
		if _, ok := w.hellos[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// refusals words the refusals of the missing workers, "" when none; w.mu
// held.
func (w *Worker) refusals(missing []int) string {
	var out []string
	for _, i := range missing {
		if r, ok := w.refused[i]; ok {
			out = append(out, fmt.Sprintf("worker %d (host %s pid %d) was refused: %s", i, r.Host, r.PID, r.Reason))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// refuse writes why this worker will not join, so that the workers that
// wait for its index say why it does not come. It is the one record a
// refused worker writes.
func (w *Worker) refuse(ctx context.Context, why error) {
	host, _ := os.Hostname()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.opts.LostAfter)
	defer cancel()
	_ = w.send(ctx, message{Kind: kindRefused, Reason: why.Error(), Host: host, PID: os.Getpid(),
		Workers: w.run.Workers, Plan: w.run.Plan, Version: w.run.Version})
}

// abandon ends a join that failed: a worker that had announced itself
// leaves, so that the others stop waiting for it; worker 0 waits for
// those that joined to leave, then deletes the run's topics (unless
// Options.KeepTopics, or the run is another's: a conflict).
func (w *Worker) abandon(err error) {
	w.mu.Lock()
	joined, conflict := w.joined, w.conflict != nil || userr.Is(err)
	w.mu.Unlock()
	if !joined {
		w.Close()
		w.cleanUnannounced(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*w.opts.LostAfter)
	defer cancel()
	_ = w.Leave(ctx, err.Error())
	if w.run.Index != 0 || conflict || w.opts.KeepTopics {
		w.Close()
		return
	}
	w.WaitLeft(ctx)
	w.Close()
	_ = Clean(ctx, w.admin, w.run.ID)
}

// cleanUnannounced deletes the run's topics when worker 0 gives up before
// it announced itself and nobody else has either (nothing was written to
// the control topic): interrupted just after creating them, it left them
// behind. Not with Options.KeepTopics, nor after a refusal (the topics are
// another run's). Asked with a fresh bound: the join's context may be the
// one interrupted.
func (w *Worker) cleanUnannounced(err error) {
	if w.run.Index != 0 || w.opts.KeepTopics || userr.Is(err) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.opts.LostAfter)
	defer cancel()
	cl, cerr := kgo.NewClient(w.admin...)
	if cerr != nil {
		return
	}
	// Looked for without creating it, whatever the options allow.
	exists, cerr := topicExists(ctx, cl, w.control)
	var end int64
	if cerr == nil && exists {
		end, cerr = endOffsetOf(ctx, cl, w.control, 0)
	}
	cl.Close()
	if cerr != nil || end > 0 {
		return // someone announced itself, or it cannot be told
	}
	_ = Clean(ctx, w.admin, w.run.ID)
}

func errTwoWorkers(runID string, index int, prev, m message) error {
	return userr.Errorf("two workers have index %d on run %q (host %s pid %d, and host %s pid %d): give each its own --worker-index, or this run a new --run-id if the other is an earlier run's",
		index, runID, prev.Host, prev.PID, m.Host, m.PID)
}

func errAnotherRun(run Run, m message) error {
	return userr.Errorf("run %q has worker %d of another run (plan %s, kbench %s, %d workers; this worker: plan %s, kbench %s, %d workers): every worker of a run id must run the same plan and settings with the same kbench and --workers; give this run a new --run-id",
		run.ID, m.Worker, m.Plan, m.Version, m.Workers, run.Plan, run.Version, run.Workers)
}
