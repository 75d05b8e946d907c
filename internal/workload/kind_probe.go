package workload

import "context"

// Probe is the drop-in end-to-end latency tool's kind ("probe"): one
// record at a time, written and then read back before the next, as
// Apache's EndToEndLatency does.
type Probe struct{ Spec E2ESpec }

func (Probe) Kind() string     { return "probe" }
func (p Probe) Engine() Engine { return &probeEngine{spec: p.Spec} }

type probeEngine struct {
	spec E2ESpec
	done chan struct{} // closed once the probe has ended and res, err are set
	res  *E2EResult
	err  error
}

func (e *probeEngine) Prepare(context.Context, Env) error { return nil }

func (e *probeEngine) Start(ctx context.Context, _ Env) error {
	e.done = make(chan struct{})
	go func() {
		defer close(e.done)
		e.res, e.err = RunEndToEnd(ctx, e.spec)
	}()
	return nil
}

func (e *probeEngine) Sent() <-chan struct{} {
	if e.done == nil {
		return closed
	}
	return e.done
}

func (e *probeEngine) Wait() (Measured, error) {
	if e.done == nil {
		return Measured{}, nil
	}
	<-e.done
	return Measured{Probe: e.res}, e.err
}

// Stop is a no-op: the probe ends with its context or its records.
func (e *probeEngine) Stop() {}
