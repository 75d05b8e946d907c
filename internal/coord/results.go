package coord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/userr"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Publish writes this worker's result slice for name (a scenario's
// repeat) to the results topic.
func (w *Worker) Publish(ctx context.Context, name string, slice []byte) error {
	if len(slice) > resultMaxBytes {
		return fmt.Errorf("result slice %s is %d bytes, over the results topic's %d", name, len(slice), resultMaxBytes)
	}
	key := []byte(name + "/" + strconv.Itoa(w.run.Index))
	if err := w.cl.ProduceSync(ctx, &kgo.Record{Topic: w.results, Key: key, Value: slice}).FirstErr(); err != nil {
		return fmt.Errorf("publish result slice %s to %s: %w", name, w.results, err)
	}
	return nil
}

// Slices waits for the result slices of name from members (the workers
// that started it), and returns them by worker with the members it did
// not get: workers that left or were lost (silent for Options.LostAfter)
// are not waited for, nor is anyone past Options.ResultTimeout. Before it
// gives up on a worker it reads the results topic to its end: a slice
// written just before its worker left is still taken.
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
			if n, i, ok := sliceKey(r.Key); ok && n == name {
				got[i] = r.Value
			}
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
	return s[:at], i, err == nil
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

// ReadResults reads every result slice a run published, by name and
// worker, from any machine that reaches the cluster (`kbench collect`).
func ReadResults(ctx context.Context, opts []kgo.Opt, runID string) (map[string]map[int][]byte, error) {
	_, results := Topics(runID)
	end, err := endOffset(ctx, opts, results)
	if err != nil {
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return nil, userr.Errorf("run %q has no results topic %s on this cluster: check the run id and --bootstrap-server (the run's topics are deleted at its end unless its workers had --keep-control)", runID, results)
		}
		return nil, err
	}
	out := map[string]map[int][]byte{}
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
			if n, i, ok := sliceKey(r.Key); ok {
				if out[n] == nil {
					out[n] = map[int][]byte{}
				}
				out[n][i] = r.Value
			}
		})
	}
	return out, nil
}

// Clean deletes the run's two topics.
func Clean(ctx context.Context, opts []kgo.Opt, runID string) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	control, results := Topics(runID)
	resp, err := kadm.NewClient(cl).DeleteTopics(ctx, control, results)
	if err != nil {
		return fmt.Errorf("delete the run's topics: %w", err)
	}
	for _, r := range resp {
		if r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("delete %s: %w", r.Topic, r.Err)
		}
	}
	return nil
}
