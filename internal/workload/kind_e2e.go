package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// EndToEnd is the "end-to-end" kind: producers, and a consumer of their
// records that reads the topic from its end and measures latency from
// each record's send time. The consumer has its partitions before the
// producers start, and stops once it has read what they had acknowledged
// (or after DrainTimeout).
type EndToEnd struct {
	Send produce.ProducerSpec // the producers (their send times are stamped)
	Read consume.ConsumerSpec // the reader of their records
}

// DrainTimeout bounds the wait for an end-to-end consumer to read the
// records its producers had acknowledged when they finished.
const DrainTimeout = 30 * time.Second

func (EndToEnd) Kind() string { return "end-to-end" }

func (e EndToEnd) Engine() Engine { return &e2eEngine{spec: e} }

// Producer implements Producing.
func (e EndToEnd) Producer() produce.ProducerSpec { return e.Send }

// WithProducer implements Producing.
func (e EndToEnd) WithProducer(s produce.ProducerSpec) Spec {
	e.Send = s
	return e
}

// BalanceClients implements Balanced.
func (e EndToEnd) BalanceClients() int { return balanceClients(e.Send) }

// WithBalance implements Balanced: its producers follow b; its reader
// measures latency and does not tell b.
func (e EndToEnd) WithBalance(b *load.Balance) Spec {
	e.Send = withBalance(e.Send, b)
	return e
}

type e2eEngine struct {
	spec EndToEnd
	cons *consume.ConsumerRun
	prod *produce.ProducerRun
	// consWait is closed once the consumer has ended, after Wait began:
	// after Ctrl-C it closes while the producers drain, not after them.
	consWait chan struct{}
}

func (e *e2eEngine) Prepare(ctx context.Context, env Env) error {
	spec := e.spec.Read
	spec.Epoch = env.Epoch
	spec.Latest, spec.Latency = true, true
	spec.Records = 0 // set by Finish once the producers are done
	run, err := consume.StartConsumer(ctx, spec)
	if err != nil {
		return fmt.Errorf("start consumers: %w", err)
	}
	e.cons = run
	return nil
}

func (e *e2eEngine) Ready() <-chan struct{} {
	if e.cons == nil {
		return closed
	}
	return e.cons.Ready()
}

func (e *e2eEngine) Start(ctx context.Context, env Env) error {
	spec := e.spec.Send
	spec.StampSent = true
	run, err := startProducer(ctx, spec, env)
	e.prod = run
	return err
}

func (e *e2eEngine) Sent() <-chan struct{} {
	if e.prod == nil {
		return closed
	}
	return e.prod.Done()
}

func (e *e2eEngine) Wait() (Measured, error) {
	var m Measured
	var errs []error
	if e.cons != nil {
		// Wait for the consumer from now on (its Wait may be called again
		// below).
		e.consWait = make(chan struct{})
		go func() {
			defer close(e.consWait)
			_, _ = e.cons.Wait()
		}()
	}
	acked := int64(-1)
	if e.prod != nil {
		res, err := e.prod.Wait()
		m.Publish = res
		errs = append(errs, err)
		if res != nil {
			acked = res.Acked
		}
	}
	if e.cons == nil {
		return m, errors.Join(errs...)
	}
	if acked < 0 {
		e.cons.Stop()
	} else {
		e.cons.Finish(acked)
		t := time.AfterFunc(DrainTimeout, e.cons.Stop)
		defer t.Stop()
	}
	res, err := e.cons.Wait()
	<-e.consWait
	m.EndToEnd = res
	errs = append(errs, err)
	if res != nil && acked >= 0 && res.Records < acked {
		errs = append(errs, fmt.Errorf("end-to-end consumer read %d of the %d acknowledged records within %s", res.Records, acked, DrainTimeout))
	}
	return m, errors.Join(errs...)
}

func (e *e2eEngine) Stop() {
	if e.cons != nil {
		e.cons.Stop()
	}
	if e.prod != nil {
		e.prod.Stop()
	}
}
