package workload

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/kbench/kbench/internal/workload/share"
)

// Spec is one workload kind's description: it names its kind (the plan's
// type names: "produce", "consume", "end-to-end"; the drop-in probe is
// "probe") and builds the engine that runs it. A kind is one file: its
// spec, its engine and the optional capabilities below.
type Spec interface {
	Kind() string
	Engine() Engine
}

// Engine runs one workload in two phases on the scenario's epoch:
// Prepare starts what must run before any workload of the scenario sends
// (a reader, until its first assignment: see Reader), Start begins
// sending. Wait returns what it measured once it has ended, also after a
// failure, by section; Stop ends it early (a workload of the scenario
// failed to start). The runner calls Prepare, then Start, then Wait, each
// once; Stop may come at any time. Wait must return also when Prepare or
// Start was never called (a late workload that never started) or failed.
type Engine interface {
	Prepare(ctx context.Context, env Env) error
	Start(ctx context.Context, env Env) error
	Wait() (Measured, error)
	Stop()
}

// Env is what the runner gives every engine of a scenario.
type Env struct {
	// Epoch is the scenario's one clock: interval series are aligned on it.
	Epoch time.Time
	// Written counts the value bytes every writer has had acknowledged (a
	// late reader's backlog condition reads it).
	Written *atomic.Int64
	// OnStall, if set, is told when a writer's records stall (the
	// runner's watchdog).
	OnStall func(measure.Stall)
	// Late is set for a workload started after the others: a reader then
	// reads its topics from the start (a catch-up, or an earlier phase's
	// records), unless it measures end-to-end latency.
	Late bool
}

// Measured is what an engine measured, by section; a kind fills the
// sections it measures, and every section may be nil after a failure.
type Measured struct {
	Publish *produce.ProducerResult // records written: publish latency, rates
	Read    *consume.ConsumerResult // records read: rates, lag (and end-to-end latency of stamped records)
	// EndToEnd is the reading of a workload's own records, read as they
	// are written: its latency is the workload's end-to-end latency.
	EndToEnd *consume.ConsumerResult
	Probe    *E2EResult // one record at a time, written then read
	// Share is what a share group's members did with their deliveries
	// (the records they settled are Read's).
	Share *share.Result
	// Sections are what a kind measures in a shape of its own, by the
	// name each is registered under (measure.RegisterSection): the
	// result keeps them and merges them with their own Add.
	Sections map[string]measure.Section
}

// Writer is an engine that writes records: readers are assigned before
// it starts, and Sent closes once it has stopped writing (at once if it
// never started).
type Writer interface {
	Sent() <-chan struct{}
}

// Reader is an engine with readers that must have their partitions before
// any writer starts, so that they see every record: Ready closes once
// they have. It is asked for only after Prepare succeeded.
type Reader interface {
	Ready() <-chan struct{}
}

// closed is a channel that is already closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()
