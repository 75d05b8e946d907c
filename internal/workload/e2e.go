package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// E2ESpec describes an end-to-end latency probe in the manner of the Apache
// tool: one record at a time is sent, acknowledged and consumed before the
// next is sent, so each latency is one record's whole trip with nothing
// queued ahead of it.
type E2ESpec struct {
	Topic   string
	Records int
	// ValueSize and KeySize are in bytes; KeySize 0 sends no key.
	ValueSize, KeySize int
	// Headers per record, with keys of HeaderKeySize bytes and values of
	// HeaderValueSize bytes (-1: null values).
	Headers, HeaderKeySize, HeaderValueSize int
	// ProducerOpts and ConsumerOpts are the two clients' franz-go options;
	// the consumer's must not name topics or a group: RunEndToEnd assigns
	// every partition of Topic from its current end.
	ProducerOpts, ConsumerOpts []kgo.Opt
	// PollTimeout bounds each record's whole trip, from its send to its
	// consumption (default 60s, the Apache tool's poll timeout; its send
	// alone could wait out delivery.timeout.ms, 2 minutes by default).
	PollTimeout time.Duration
	// OnRecord, if set, is called after each record with its index and
	// latency.
	OnRecord func(i int, latency time.Duration)
	// OnStall, if set, is called every stallNotice while a record is not
	// back, with its index, how long it has been and whether it was
	// acknowledged. The first time, the cluster is also checked once
	// (kadmin.Ping): if no broker answers, the run fails at once.
	OnStall func(i int, waited time.Duration, acknowledged bool)
	// Seed makes the record contents repeatable (0: a fixed seed).
	Seed uint64
}

// E2EResult is what an end-to-end probe measured.
type E2EResult struct {
	Start, End time.Time
	Count      int
	// TotalNanos is the sum of every latency, for the Apache tool's average.
	TotalNanos float64
	// Latency holds every latency in microseconds.
	Latency *measure.Histogram
	// MsCounts[ms] counts the latencies of ms whole milliseconds
	// (truncated), from which the Apache tool's percentiles are exact.
	MsCounts []int64
}

// RunEndToEnd runs the probe. It returns the result so far together with
// an error when a record is not received in time or not as sent.
func RunEndToEnd(ctx context.Context, s E2ESpec) (*E2EResult, error) {
	if s.PollTimeout <= 0 {
		s.PollTimeout = 60 * time.Second
	}
	if s.Topic == "" || s.Records <= 0 {
		return nil, errors.New("end-to-end: no topic or no records")
	}
	cons, err := e2eConsumer(ctx, s)
	if err != nil {
		return nil, err
	}
	// The probe's clients hold no group: closing takes milliseconds unless
	// a broker does not answer, and then it must not hold up the end.
	defer engine.CloseBounded(cons, engine.InterruptCloseBound)
	prod, err := engine.NewClient(s.ProducerOpts)
	if err != nil {
		return nil, fmt.Errorf("end-to-end: create producer: %w", err)
	}
	defer engine.CloseBounded(prod, engine.InterruptCloseBound)

	res := &E2EResult{Start: time.Now(), Latency: measure.NewHistogram()}
	gen := newE2ERecords(s)
	for i := range s.Records {
		rec := gen.next(s.Topic)
		begin := time.Now()
		got, err := trip(ctx, s, i, prod, cons, rec)
		elapsed := time.Since(begin)
		if err == nil {
			err = sameRecord(rec, got)
		}
		if err != nil {
			res.End = time.Now()
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, fmt.Errorf("end-to-end: record %d: %w", i, err)
		}
		res.add(elapsed)
		if s.OnRecord != nil {
			s.OnRecord(i, elapsed)
		}
	}
	res.End = time.Now()
	return res, nil
}

// stallNotice is how long a record may be on its way before the probe
// says so and checks that the cluster answers.
const stallNotice = 5 * time.Second

// trip sends record i and waits for it to come back, at most
// s.PollTimeout from the send. Waiting longer than stallNotice, it tells
// OnStall (every stallNotice) and checks the cluster once: if no broker
// answers, it fails at once with that reason.
func trip(ctx context.Context, s E2ESpec, i int, prod, cons *kgo.Client, rec *kgo.Record) (*kgo.Record, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, s.PollTimeout, errTripTimeout)
	defer cancel()
	wctx, stop := context.WithCancelCause(tctx)
	defer stop(nil)
	var acked atomic.Bool
	w := &tripWatch{ctx: wctx, stop: stop, prod: prod, onStall: s.OnStall, i: i, acked: &acked, begin: time.Now()}
	w.arm()
	defer w.wait()
	_, err := kadmin.Await(wctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, prod.ProduceSync(ctx, rec).FirstErr()
	})
	if err != nil {
		return nil, tripErr(ctx, wctx, "send", s.PollTimeout, err)
	}
	acked.Store(true)
	got, err := pollOne(wctx, cons)
	if err != nil {
		return nil, tripErr(ctx, wctx, "poll", s.PollTimeout, err)
	}
	return got, nil
}

// errTripTimeout ends a trip that ran out of its time.
var errTripTimeout = errors.New("trip timed out")

// tripErr says why a trip failed: the caller's context, the cluster not
// answering, the trip's time running out (in the Apache tool's words when
// polling), or the error itself.
func tripErr(ctx, wctx context.Context, step string, timeout time.Duration, err error) error {
	cause := context.Cause(wctx)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(cause, kadmin.ErrUnreachable):
		return cause
	case errors.Is(cause, errTripTimeout) && step == "poll":
		return fmt.Errorf("poll() timed out before finding a result (timeout:[%dms])", timeout.Milliseconds())
	case errors.Is(cause, errTripTimeout):
		return fmt.Errorf("no acknowledgement within %s", timeout)
	case step == "send":
		return fmt.Errorf("send: %w", err)
	}
	return err
}

// tripWatch follows one record's trip: every stallNotice it tells
// onStall, and the first time it checks the cluster, cancelling the trip
// with the reason when no broker answers. Its timer starts a goroutine
// only when it fires; wait waits for it.
type tripWatch struct {
	ctx     context.Context
	stop    context.CancelCauseFunc
	prod    *kgo.Client
	onStall func(i int, waited time.Duration, acknowledged bool)
	i       int
	acked   *atomic.Bool
	begin   time.Time

	mu      sync.Mutex
	timer   *time.Timer
	checked bool
	wg      sync.WaitGroup
}

func (w *tripWatch) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx.Err() != nil {
		return
	}
	w.wg.Add(1)
	w.timer = time.AfterFunc(stallNotice, func() {
		defer w.wg.Done()
		if w.ctx.Err() != nil {
			return
		}
		if w.onStall != nil {
			w.onStall(w.i, time.Since(w.begin), w.acked.Load())
		}
		w.mu.Lock()
		check := !w.checked
		w.checked = true
		w.mu.Unlock()
		if check {
			if err := kadmin.Ping(w.ctx, w.prod); errors.Is(err, kadmin.ErrUnreachable) {
				w.stop(err)
				return
			}
		}
		w.arm()
	})
}

// wait stops the timer and waits for a notice or check in progress, which
// ends with the trip's context.
func (w *tripWatch) wait() {
	w.stop(nil)
	w.mu.Lock()
	if w.timer != nil && w.timer.Stop() {
		w.wg.Done() // it will not fire
	}
	w.mu.Unlock()
	w.wg.Wait()
}

func (r *E2EResult) add(d time.Duration) {
	r.Count++
	r.TotalNanos += float64(d.Nanoseconds())
	r.Latency.Record(d.Microseconds())
	ms := int(d.Milliseconds())
	if ms >= len(r.MsCounts) {
		r.MsCounts = append(r.MsCounts, make([]int64, ms+1-len(r.MsCounts))...)
	}
	r.MsCounts[ms]++
}

// e2eConsumer assigns every partition of the topic at its current end, so
// the first record it sees is the first one sent.
func e2eConsumer(ctx context.Context, s E2ESpec) (*kgo.Client, error) {
	admin, err := kgo.NewClient(s.ConsumerOpts...)
	if err != nil {
		return nil, fmt.Errorf("end-to-end: create consumer: %w", err)
	}
	defer admin.Close()
	if err := kadmin.Ping(ctx, admin); err != nil {
		return nil, err
	}
	ends, err := engine.ListOffsets(ctx, kadm.NewClient(admin), true, s.Topic) // awaited: returns at Ctrl-C
	if err != nil {
		return nil, fmt.Errorf("end-to-end: list end offsets of %q: %w", s.Topic, err)
	}
	assign := map[string]map[int32]kgo.Offset{s.Topic: {}}
	ends.Each(func(o kadm.ListedOffset) { assign[s.Topic][o.Partition] = kgo.NewOffset().At(o.Offset) })
	cl, err := engine.NewClient(s.ConsumerOpts, kgo.ConsumePartitions(assign))
	if err != nil {
		return nil, fmt.Errorf("end-to-end: create consumer: %w", err)
	}
	return cl, nil
}

// pollOne waits for the next records, until ctx ends, and returns the
// only one; more than one means someone else writes to the topic, which
// spoils the measurement.
func pollOne(ctx context.Context, cl *kgo.Client) (*kgo.Record, error) {
	for {
		fs := cl.PollFetches(ctx)
		if n := fs.NumRecords(); n > 0 {
			if n != 1 {
				return nil, fmt.Errorf("Only one result was expected during this test. We found [%d]", n)
			}
			return fs.Records()[0], nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var fatal error
		fs.EachError(func(t string, p int32, err error) {
			if engine.FatalFetchError(err) {
				fatal = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
			}
		})
		if fatal != nil {
			return nil, fatal
		}
	}
}

// sameRecord checks that the consumed record is the one sent.
func sameRecord(sent, got *kgo.Record) error {
	if !bytes.Equal(sent.Value, got.Value) {
		return fmt.Errorf("The message read [%s] did not match the message sent [%s]", clip(got.Value), clip(sent.Value))
	}
	if sent.Key != nil && !bytes.Equal(sent.Key, got.Key) {
		return fmt.Errorf("The message key read [%s] did not match the message key sent [%s]", clip(got.Key), clip(sent.Key))
	}
	if len(sent.Headers) != len(got.Headers) {
		return errors.New("Header count mismatch between sent and received messages")
	}
	for i, h := range sent.Headers {
		g := got.Headers[i]
		if h.Key != g.Key || !bytes.Equal(h.Value, g.Value) {
			return fmt.Errorf("header %d differs: sent %q, read %q", i, h.Key, g.Key)
		}
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return string(b)
}

// e2eRecords makes records like the Apache tool's: each value (and key,
// and header) is one random letter A-Z repeated.
type e2eRecords struct {
	s   E2ESpec
	rnd *rand.Rand
}

func newE2ERecords(s E2ESpec) *e2eRecords {
	return &e2eRecords{s: s, rnd: rand.New(rand.NewPCG(s.Seed, 0x6b62656e6368))}
}

func (g *e2eRecords) letters(n int) []byte {
	if n < 0 {
		return nil
	}
	return bytes.Repeat([]byte{byte('A' + g.rnd.IntN(26))}, n)
}

func (g *e2eRecords) next(topic string) *kgo.Record {
	r := &kgo.Record{Topic: topic, Value: g.letters(g.s.ValueSize)}
	if g.s.KeySize > 0 {
		r.Key = g.letters(g.s.KeySize)
	}
	for range g.s.Headers {
		r.Headers = append(r.Headers, kgo.RecordHeader{
			Key:   string(g.letters(g.s.HeaderKeySize)),
			Value: g.letters(g.s.HeaderValueSize),
		})
	}
	return r
}
