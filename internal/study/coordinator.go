package study

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
)

// Coordinator is what a distributed run's worker (workers.go) asks of the
// run's coordination: the verbs of *coord.Worker that the study calls, and
// nothing more, so that the worker's state machine runs as well against an
// in-memory coordinator (internal/coord/memcoord) in tests as against the
// cluster under test. Worker 0 alone sets starts, calls repeats off, stops
// them, judges them, announces and gathers slices; the others' CallOff,
// Stop, Judge and Announce do nothing.
type Coordinator interface {
	// Barrier waits until every live worker reached name; it returns the
	// common start on this worker's clock and the workers taking part.
	Barrier(ctx context.Context, name string) (time.Time, []int, error)
	// CallOff tells the workers at barrier name that it will not start.
	CallOff(ctx context.Context, name, reason string) error
	// Stop ends repeat name on every worker; Stopped says so to the others.
	Stop(ctx context.Context, name, reason string) error
	Stopped(name string) error
	// Judge tells the others worker 0's merged outcome of repeat name;
	// AwaitVerdict waits for it (false: none came).
	Judge(ctx context.Context, name string, v coord.Verdict) error
	AwaitVerdict(ctx context.Context, name string) (coord.Verdict, bool)
	// Announce tells the others a decision of worker 0's (a rate search's
	// next probe, or its end), data as encoded; Announced waits for it,
	// and fails when worker 0 left, ended the run or was lost.
	Announce(ctx context.Context, name string, data []byte) error
	Announced(ctx context.Context, name string) ([]byte, error)
	// Publish writes this worker's result slice of name; Slices gathers
	// the members' slices (worker 0), with the members it did not get.
	Publish(ctx context.Context, name string, slice []byte) error
	Slices(ctx context.Context, name string, members []int) (map[int][]byte, []int, error)
	// Pieces reads what worker published under names beginning with
	// prefix, by name: worker 0 reads a lost worker's ledger pieces.
	Pieces(ctx context.Context, prefix string, worker int) (map[string][]byte, error)
	// Lost are the workers silent too long; Gone says why worker i is not
	// there ("" while it is); Over is why the run is over for a worker
	// other than 0 (wrapping coord.ErrRunOver), nil while it goes on.
	Lost() []int
	Gone(i int) string
	Over() error
	// Foreign counts the records no worker of the run wrote, with the
	// first in words.
	Foreign() (int, string)
	// Clock is this worker's offset against the reference clock;
	// ControlBytes what it wrote to the control traffic so far.
	Clock() coord.Clock
	ControlBytes() int64
	// Leave says this worker has ended; End (worker 0) marks the run
	// over; WaitLeft (worker 0) waits for the others to leave or be lost.
	Leave(ctx context.Context, reason string) error
	End(ctx context.Context) error
	WaitLeft(ctx context.Context)
	// Close stops heartbeating and reading.
	Close()
}

// JoinFunc makes this process a worker of run: coord.Join through the
// cluster under test (admin reaches it), or an in-memory coordinator in
// tests.
type JoinFunc func(ctx context.Context, admin []kgo.Opt, run coord.Run, o coord.Options) (Coordinator, error)

var _ Coordinator = (*coord.Worker)(nil)

// joinCluster is the JoinFunc of a real run: coordination through the
// cluster under test.
func joinCluster(ctx context.Context, admin []kgo.Opt, run coord.Run, o coord.Options) (Coordinator, error) {
	w, err := coord.Join(ctx, admin, run, o)
	if err != nil {
		return nil, err // a nil *coord.Worker in an interface would not be nil
	}
	return w, nil
}
