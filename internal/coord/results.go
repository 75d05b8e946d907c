package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/userr"
)

// instanceHeader names, on each record of the results topic, the process
// that wrote it (its hello's instance): a record of worker i counts only
// from the process that joined as worker i.
const instanceHeader = "kbench.instance"

// Publish writes this worker's result slice for name (a scenario's
// repeat) to the results topic.
func (w *Worker) Publish(ctx context.Context, name string, slice []byte) error {
	if len(slice) > resultMaxBytes {
		return fmt.Errorf("result slice %s is %d bytes, over the results topic's %d", name, len(slice), resultMaxBytes)
	}
	key := []byte(name + "/" + strconv.Itoa(w.run.Index))
	r := &kgo.Record{Topic: w.results, Key: key, Value: slice,
		Headers: []kgo.RecordHeader{{Key: instanceHeader, Value: []byte(w.instance)}}}
	if err := w.cl.ProduceSync(ctx, r).FirstErr(); err != nil {
		return fmt.Errorf("publish result slice %s to %s: %w", name, w.results, err)
	}
	return nil
}

// Slices waits for the result slices of name from members (the workers
// that started it), and returns them by worker with the members it did
// not get: workers that left or were lost (silent for Options.LostAfter)
// are not waited for, nor is anyone past Options.ResultTimeout. Before it
// gives up on a worker it reads the results topic to its end: a slice
// written just before its worker left is still taken. A slice counts only
// from the process that joined with its worker index (the first of
// them); any other is counted in Foreign.
func (w *Worker) Slices(ctx context.Context, name string, members []int) (map[int][]byte, []int, error) {
	got := map[int][]byte{}
	rd, err := newResultsReader(w.admin, w.results)
	if err != nil {
		return nil, nil, err
	}
	defer rd.cl.Close()
	deadline := time.Now().Add(w.opts.ResultTimeout)
	var next int64 // the next offset to read
	poll := func(ctx context.Context) {
		fs := rd.cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			next = r.Offset + 1
			n, i, ok := sliceKey(r.Key)
			if !ok || n != name {
				return
			}
			w.mu.Lock()
			h, joined := w.hellos[i]
			if !joined || h.Instance != instanceOf(r) {
				w.foreign.add(fmt.Sprintf("offset %d of %s: a result slice %s of worker %d from a process that did not join as worker %d", r.Offset, w.results, n, i, i))
			} else if _, dup := got[i]; !dup {
				got[i] = r.Value
			}
			w.mu.Unlock()
		})
	}
	for {
		var waiting []int
		w.mu.Lock()
		lost := w.lost()
		for _, i := range members {
			_, left := w.left[i]
			if _, ok := got[i]; !ok && !left && !slices.Contains(lost, i) {
				waiting = append(waiting, i)
			}
		}
		w.mu.Unlock()
		if len(waiting) == 0 || time.Now().After(deadline) {
			if len(missingOf(members, got)) > 0 {
				w.readToEnd(ctx, rd.cl, &next, poll)
			}
			return got, missingOf(members, got), nil
		}
		pctx, cancel := context.WithTimeout(ctx, w.opts.Heartbeat)
		poll(pctx)
		cancel()
		if ctx.Err() != nil {
			return got, missingOf(members, got), ctx.Err()
		}
	}
}

func instanceOf(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == instanceHeader {
			return string(h.Value)
		}
	}
	return ""
}

// readToEnd polls until *next reaches the results topic's end offset,
// bounded by Options.LostAfter.
func (w *Worker) readToEnd(ctx context.Context, cl *kgo.Client, next *int64, poll func(context.Context)) {
	ctx, cancel := context.WithTimeout(ctx, w.opts.LostAfter)
	defer cancel()
	end, err := endOffsetOf(ctx, cl, w.results, topicSettle)
	if err != nil {
		return
	}
	for *next < end && ctx.Err() == nil {
		poll(ctx)
	}
}

func missingOf(members []int, got map[int][]byte) []int {
	var out []int
	for _, i := range members {
		if _, ok := got[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// sliceKey splits "name/worker".
func sliceKey(k []byte) (string, int, bool) {
	s := string(k)
	at := strings.LastIndexByte(s, '/')
	if at < 0 {
		return "", 0, false
	}
	i, err := strconv.Atoi(s[at+1:])
	return s[:at], i, err == nil && i >= 0
}

type resultsReader struct{ cl *kgo.Client }

func newResultsReader(opts []kgo.Opt, topic string) (*resultsReader, error) {
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()), // opts may carry auto.offset.reset=latest
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxPartitionBytes(resultMaxBytes+1<<20),
		kgo.FetchMaxBytes(resultMaxBytes+1<<20),
	)...)
	if err != nil {
		return nil, fmt.Errorf("results reader: %w", err)
	}
	return &resultsReader{cl: cl}, nil
}

// Published is one record a run's worker left on its results topic: a
// result slice, or the run's header, under Name.
type Published struct {
	Name   string
	Worker int
	Offset int64
	Value  []byte
}

// RunResults is what a run left on its results topic.
type RunResults struct {
	// Records are the records of the run's workers, in the topic's order.
	Records []Published
	// Ignored are the records no worker of the run wrote, each in words
	// with its offset: a key that is no result's, or a worker index
	// written by a process that did not join with it.
	Ignored []string
}

// First is the first record of each worker published under name.
func (rr *RunResults) First(name string) map[int][]byte {
	out := map[int][]byte{}
	for _, p := range rr.Records {
		if _, ok := out[p.Worker]; !ok && p.Name == name {
			out[p.Worker] = p.Value
		}
	}
	return out
}

// ReadResults reads every record a run's workers published, from any
// machine that reaches the cluster (`kbench collect`). It creates
// nothing: a run id with no results topic is the user's error, found
// with a request that never auto-creates topics, whatever opts allow.
// Which process joined as which worker comes from the hellos on the
// run's control topic; without that topic every well-keyed record is
// taken.
func ReadResults(ctx context.Context, opts []kgo.Opt, runID string) (*RunResults, error) {
	if err := CheckID(runID); err != nil {
		return nil, err
	}
	control, results := Topics(runID)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ok, err := topicExists(ctx, cl, results)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, userr.Errorf("run %q has no results topic %s on this cluster: check the run id and --bootstrap-server (the run's topics are deleted at its end unless its workers had --keep-control)", runID, results)
	}
	out := &RunResults{}
	instances, err := readHellos(ctx, opts, cl, control)
	if err != nil {
		return nil, err
	}
	if instances == nil {
		out.Ignored = append(out.Ignored, fmt.Sprintf("the run's control topic %s is gone, so no record could be checked against the process that joined as its worker", control))
	}
	end, err := endOffsetOf(ctx, cl, results, 0)
	if err != nil {
		return nil, err
	}
	rd, err := newResultsReader(opts, results)
	if err != nil {
		return nil, err
	}
	defer rd.cl.Close()
	for read := int64(0); read < end; {
		fs := rd.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", results, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			read = r.Offset + 1
			n, i, ok := sliceKey(r.Key)
			switch {
			case !ok:
				out.Ignored = append(out.Ignored, fmt.Sprintf("offset %d: its key %q is no result slice's (NAME/WORKER)", r.Offset, r.Key))
			case instances != nil && instances[i] != instanceOf(r):
				out.Ignored = append(out.Ignored, fmt.Sprintf("offset %d: %s of worker %d from a process that did not join as worker %d", r.Offset, n, i, i))
			default:
				out.Records = append(out.Records, Published{Name: n, Worker: i, Offset: r.Offset, Value: r.Value})
			}
		})
	}
	return out, nil
}

// readHellos reads which process (instance) joined as each worker from
// the run's control topic: the first hello of each index, as the workers
// took it, up to the first of every index the run has. nil when the
// topic is gone.
func readHellos(ctx context.Context, opts []kgo.Opt, cl *kgo.Client, control string) (map[int]string, error) {
	ok, err := topicExists(ctx, cl, control)
	if err != nil || !ok {
		return nil, err
	}
	end, err := endOffsetOf(ctx, cl, control, 0)
	if err != nil {
		return nil, err
	}
	rd, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...),
		// The hellos are on the broadcast partition.
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{control: {broadcast: kgo.NewOffset().AtStart()}}),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	out := map[int]string{}
	var first *message // the first hello: the run, as its workers took it
	for read := int64(0); read < end && (first == nil || len(out) < first.Workers); {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", control, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			read = r.Offset + 1
			var m message
			if json.Unmarshal(r.Value, &m) != nil || m.Kind != kindHello || m.Worker < 0 {
				return
			}
			if first == nil {
				first = &m
			}
			same := m.Workers == first.Workers && m.Plan == first.Plan && m.Version == first.Version
			if _, taken := out[m.Worker]; !taken && same && m.Worker < m.Workers {
				out[m.Worker] = m.Instance
			}
		})
	}
	return out, nil
}

// Pieces reads the results topic to its end once and returns what worker
// published under names beginning with prefix, by name (the first of
// each, from the process that joined as worker): a lost worker's ledger
// pieces, which worker 0 checks in its place.
func (w *Worker) Pieces(ctx context.Context, prefix string, worker int) (map[string][]byte, error) {
	rd, err := newResultsReader(w.admin, w.results)
	if err != nil {
		return nil, err
	}
	defer rd.cl.Close()
	got := map[string][]byte{}
	var next int64
	poll := func(ctx context.Context) {
		fs := rd.cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			next = r.Offset + 1
			n, i, ok := sliceKey(r.Key)
			if !ok || i != worker || !strings.HasPrefix(n, prefix) {
				return
			}
			w.mu.Lock()
			h, joined := w.hellos[i]
			w.mu.Unlock()
			if _, dup := got[n]; joined && h.Instance == instanceOf(r) && !dup {
				got[n] = r.Value
			}
		})
	}
	w.readToEnd(ctx, rd.cl, &next, poll)
	if ctx.Err() != nil {
		return got, ctx.Err()
	}
	return got, nil
}
