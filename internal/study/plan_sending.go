package study

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// sendEnd tells when every producer of a repeat has stopped sending: sent
// its records (each client's last sequence number stamped) or run its
// duration. The fault timeline ends then and heals the cluster, so that
// producers flush to a whole cluster: a broker left paused held the flush
// for the whole delivery timeout (2 minutes), and the heal came after it.
type sendEnd struct {
	ended   chan struct{}
	left    atomic.Int32 // producers still sending
	unknown bool         // a producer stops only with the run
	timed   []timedStop
	timers  []*time.Timer
}

// timedStop is a producer that stops sending after d.
type timedStop struct {
	d    time.Duration
	done func()
}

func newSendEnd() *sendEnd { return &sendEnd{ended: make(chan struct{})} }

// add follows a producer before it starts; the spec returned counts its
// records as its clients stamp them.
func (s *sendEnd) add(spec produce.ProducerSpec) produce.ProducerSpec {
	if spec.Records <= 0 && spec.Duration <= 0 {
		s.unknown = true
		return spec
	}
	s.left.Add(1)
	var once sync.Once
	done := func() { once.Do(s.producerDone) }
	if spec.Duration > 0 {
		s.timed = append(s.timed, timedStop{spec.Duration, done})
	}
	if spec.Records > 0 {
		spec.Tracker = lastRecords(spec, done)
	}
	return spec
}

// begin starts the producers' clocks: call it as they start.
func (s *sendEnd) begin() {
	for _, t := range s.timed {
		s.timers = append(s.timers, time.AfterFunc(t.d, t.done))
	}
}

// stop releases the timers.
func (s *sendEnd) stop() {
	for _, t := range s.timers {
		t.Stop()
	}
}

// known reports whether ended will close before the workloads end.
func (s *sendEnd) known() bool { return !s.unknown && s.left.Load() > 0 }

func (s *sendEnd) producerDone() {
	if s.left.Add(-1) == 0 && !s.unknown {
		close(s.ended)
	}
}

// lastRecords wraps spec's tracker (nil: none) so that done is called once
// every client has stamped its last record. Clients split Records as the
// producer does: the first Records%Clients send one more.
func lastRecords(spec produce.ProducerSpec, done func()) func(i int) produce.RecordTracker {
	n := int64(max(spec.Clients, 1))
	clients := new(atomic.Int64)
	clients.Store(n)
	clientDone := func() {
		if clients.Add(-1) == 0 {
			done()
		}
	}
	inner := spec.Tracker
	return func(i int) produce.RecordTracker {
		last := spec.Records/n - 1
		if int64(i) < spec.Records%n {
			last++
		}
		lt := &lastTracker{last: last, done: clientDone}
		if inner != nil {
			lt.inner = inner(i)
		}
		if last < 0 {
			clientDone() // a share of no records
		}
		return lt
	}
}

// lastTracker calls done when its client stamps its last record.
type lastTracker struct {
	inner produce.RecordTracker
	last  int64
	done  func()
}

func (t *lastTracker) Stamp(r *kgo.Record, seq int64) {
	if t.inner != nil {
		t.inner.Stamp(r, seq)
	}
	if seq == t.last {
		t.done()
	}
}

func (t *lastTracker) Done(r *kgo.Record, seq int64, err error) {
	if t.inner != nil {
		t.inner.Done(r, seq, err)
	}
}
