package produce

import "context"

// ProducerRun is a producer workload in progress, the handle the runner
// holds while other workloads and faults run beside it.
type ProducerRun struct {
	stopSend context.CancelFunc
	done     chan struct{}
	res      *ProducerResult
	err      error
}

// StartProducer checks the spec and starts the workload in the background.
// Stop ends sending early; Wait returns what RunProducer would.
func StartProducer(ctx context.Context, s ProducerSpec) (*ProducerRun, error) {
	if _, err := s.withDefaults(); err != nil {
		return nil, err
	}
	until, stop := context.WithCancel(context.Background())
	s.Until = until
	r := &ProducerRun{stopSend: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer stop()
		r.res, r.err = RunProducer(ctx, s)
	}()
	return r, nil
}

// Stop ends sending now, as the end of the spec's Duration would: records
// already handed to the client still complete. It does not wait.
func (r *ProducerRun) Stop() { r.stopSend() }

// Done is closed once the run has ended and Wait returns at once.
func (r *ProducerRun) Done() <-chan struct{} { return r.done }

// Wait waits for the run to end and returns what it measured.
func (r *ProducerRun) Wait() (*ProducerResult, error) {
	<-r.done
	return r.res, r.err
}
