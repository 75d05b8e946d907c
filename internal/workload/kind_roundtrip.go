package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// RoundTrip is the "round-trip" kind: producers write a service's input
// topic, each record stamped with an id of the run (RoundTripHeader, or
// its key), and a reader of the service's reply topic matches every
// output to its record. The reader has the reply topic's partitions,
// from their end, before the producers start; it reads until every
// acknowledged record's output was matched, or until Timeout after the
// producers ended. What it measures is a RoundTripSection.
type RoundTrip struct {
	Send produce.ProducerSpec // the producers of the service's input
	// Read is the reader of the reply topic (its Topics): one client,
	// partitions assigned directly from their end.
	Read consume.ConsumerSpec
	// Key matches outputs by their key, which the producers set to each
	// record's id; false matches by RoundTripHeader.
	Key bool
	// Timeout is how long after the producers ended (the last record
	// sent and answered) outputs are waited for (default
	// DefaultReplyTimeout); those not read by then are missing.
	Timeout time.Duration
}

// DefaultReplyTimeout is RoundTrip's Timeout when none is given.
const DefaultReplyTimeout = 30 * time.Second

func (RoundTrip) Kind() string { return "round-trip" }

func (r RoundTrip) Engine() Engine { return &roundTripEngine{spec: r, nonce: rand.Uint64()} }

// Producer implements Producing.
func (r RoundTrip) Producer() produce.ProducerSpec { return r.Send }

// WithProducer implements Producing.
func (r RoundTrip) WithProducer(s produce.ProducerSpec) Spec {
	r.Send = s
	return r
}

// BalanceClients implements Balanced.
func (r RoundTrip) BalanceClients() int { return balanceClients(r.Send) }

// WithBalance implements Balanced: its producers follow b.
func (r RoundTrip) WithBalance(b *load.Balance) Spec {
	r.Send = withBalance(r.Send, b)
	return r
}

type roundTripEngine struct {
	spec     RoundTrip
	nonce    uint64 // the run's ids: outputs of another run are unmatched
	match    *rtMatcher
	stampers []*rtStamper
	cons     *consume.ConsumerRun
	prod     *produce.ProducerRun
}

func (e *roundTripEngine) match0() string {
	if e.spec.Key {
		return "key"
	}
	return "header"
}

func (e *roundTripEngine) Prepare(ctx context.Context, env Env) error {
	clients := max(e.spec.Send.Clients, 1)
	interval := e.spec.Send.Interval
	if interval <= 0 {
		interval = time.Second
	}
	e.match = newRTMatcher(e.nonce, e.spec.Key, clients, env.Epoch, interval)
	e.stampers = make([]*rtStamper, clients)
	for i := range e.stampers {
		e.stampers[i] = &rtStamper{nonce: e.nonce, client: i, key: e.spec.Key}
	}
	spec := e.spec.Read
	spec.Epoch = env.Epoch
	spec.Group, spec.Latest, spec.Latency = "", true, false
	spec.Records, spec.Duration, spec.IdleTimeout = 0, 0, 0 // stopped by Wait
	spec.Observe = func(int) func(recs []*kgo.Record, nowNs int64) { return e.match.observe }
	run, err := consume.StartConsumer(ctx, spec)
	if err != nil {
		return fmt.Errorf("start the reader of %v: %w", spec.Topics, err)
	}
	e.cons = run
	return nil
}

func (e *roundTripEngine) Ready() <-chan struct{} {
	if e.cons == nil {
		return closed
	}
	return e.cons.Ready()
}

func (e *roundTripEngine) Start(ctx context.Context, env Env) error {
	spec := e.spec.Send
	spec.StampSent = true // the record's timestamp keeps the intended send time's nanoseconds for the id
	spec.Tracker = func(i int) produce.RecordTracker { return e.stampers[i] }
	run, err := startProducer(ctx, spec, env)
	e.prod = run
	return err
}

func (e *roundTripEngine) Sent() <-chan struct{} {
	if e.prod == nil {
		return closed
	}
	return e.prod.Done()
}

func (e *roundTripEngine) Wait() (Measured, error) {
	var m Measured
	var errs []error
	var res *produce.ProducerResult
	if e.prod != nil {
		var err error
		res, err = e.prod.Wait()
		m.Publish = res
		errs = append(errs, err)
	}
	if e.cons == nil {
		return m, errors.Join(errs...)
	}
	timeout := e.spec.Timeout
	if timeout <= 0 {
		timeout = DefaultReplyTimeout
	}
	if res != nil {
		e.match.expectAll(res.Acked)
		end := res.End
		if end.IsZero() {
			end = time.Now()
		}
		t := time.NewTimer(time.Until(end.Add(timeout)))
		select {
		case <-e.match.all:
		case <-t.C:
		case <-e.cons.Done(): // the reader failed or was stopped (Ctrl-C)
		}
		t.Stop()
	}
	e.cons.Stop()
	_, err := e.cons.Wait()
	errs = append(errs, err)
	if res != nil {
		acked := make([]bitset, len(e.stampers))
		for i, s := range e.stampers {
			acked[i] = s.acked // the producer has ended: its promise workers with it
		}
		m.Sections = map[string]measure.Section{RoundTripSectionName: e.match.section(acked, e.match0(), timeout)}
	}
	return m, errors.Join(errs...)
}

func (e *roundTripEngine) Stop() {
	if e.cons != nil {
		e.cons.Stop()
	}
	if e.prod != nil {
		e.prod.Stop()
	}
}
