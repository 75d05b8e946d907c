// Package observe is how a run is followed while it goes: the Observer
// interface and the descriptions of repeats and workloads observers
// receive. Learn Observer and WorkloadInfo first.
//
// Observers (the live terminal view, the Prometheus endpoint) see
// measurements only (internal/measure), never engines or the runner: this
// package imports measure and result and nothing else of kbench, so a new
// workload kind reaches every observer without any of them learning it.
package observe

import (
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

// Observer follows a plan run as it goes. The interval methods are called
// from the workloads' reporter goroutines, concurrently with each other:
// implementations lock.
type Observer interface {
	RepeatStarted(RepeatInfo)
	// ProducerInterval gets each interval of a sending workload's series
	// (every record, warm-up included, with the failures so far).
	ProducerInterval(workload string, iv measure.Interval)
	// ConsumerInterval gets what a reading workload read since its last
	// call.
	ConsumerInterval(workload string, iv measure.ConsumerInterval)
	ConsumerLag(workload string, records int64)
	// RepeatEnded gets the repeat as result.json will hold it.
	RepeatEnded(RepeatInfo, result.Repeat)
}

// WorkloadEnder is an Observer that wants to know when each workload of
// the running repeat has ended.
type WorkloadEnder interface {
	WorkloadEnded(workload string)
}

// RepeatInfo says which repeat of which scenario is running, and how long
// its workloads are asked to run.
type RepeatInfo struct {
	Scenario, Scenarios int // 1-based
	Name                string
	Repeat, Repeats     int // 1-based
	Started             time.Time
	Workloads           []WorkloadInfo
}

// WorkloadInfo is one workload's size: a record count, a duration, both
// or neither (until the cluster or an idle timeout ends it), and what it
// does. Observers branch on what a workload does (Sends, Reads), never on
// its kind's name, which is for display only.
type WorkloadInfo struct {
	Name, Type string
	// Sends is set when the workload writes records (its rate is what was
	// acknowledged), Reads when it reads them; an end-to-end workload does
	// both, and its rate is its writer's.
	Sends, Reads bool
	Records      int64
	Duration     time.Duration
	StartAfter   time.Duration
	// AfterWorkload and Backlog are the other conditions of a late start
	// (start_after a workload's end, backlog: bytes written).
	AfterWorkload string
	Backlog       int64
	// Idle, when set, says whether the workload's load asks for nothing at
	// t since its start (a ramp at 0 virtual users or a rate stage at 0):
	// no record is due then, so none completing is no stall.
	Idle func(t time.Duration) bool
}

// EndedOf is o's WorkloadEnded, or nil when o does not want to know.
func EndedOf(o Observer) func(string) {
	if e, ok := o.(WorkloadEnder); ok {
		return e.WorkloadEnded
	}
	return nil
}

// Observers tells each of several observers, in order.
type Observers []Observer

func (os Observers) RepeatStarted(ri RepeatInfo) {
	for _, o := range os {
		o.RepeatStarted(ri)
	}
}

func (os Observers) ProducerInterval(w string, iv measure.Interval) {
	for _, o := range os {
		o.ProducerInterval(w, iv)
	}
}

func (os Observers) ConsumerInterval(w string, iv measure.ConsumerInterval) {
	for _, o := range os {
		o.ConsumerInterval(w, iv)
	}
}

func (os Observers) ConsumerLag(w string, records int64) {
	for _, o := range os {
		o.ConsumerLag(w, records)
	}
}

func (os Observers) RepeatEnded(ri RepeatInfo, rep result.Repeat) {
	for _, o := range os {
		o.RepeatEnded(ri, rep)
	}
}

func (os Observers) WorkloadEnded(w string) {
	for _, o := range os {
		if e, ok := o.(WorkloadEnder); ok {
			e.WorkloadEnded(w)
		}
	}
}

// ProbeInfo says which run of a rate search (rate: max) starts: the
// repeat's workloads run again from nothing, the searching one for
// Duration.
type ProbeInfo struct {
	Workload string
	// Step is "warm-up", "search" or "confirm".
	Step string
	// Rate is the rate asked (records/s; 0 full speed); Probe is this run
	// at it (1-based) of at most Probes.
	Rate          float64
	Probe, Probes int
	Duration      time.Duration
	// MoreAtMost is how many runs may follow this one at most, within the
	// search's bounds; Deadline is its time bound (max_time).
	MoreAtMost int
	Deadline   time.Time
}

// ProbeStarter is an Observer that wants to know when each run of a rate
// search starts.
type ProbeStarter interface {
	ProbeStarted(ProbeInfo)
}

// ProbeStartedOf is o's ProbeStarted, or nil when o does not want to
// know.
func ProbeStartedOf(o Observer) func(ProbeInfo) {
	if p, ok := o.(ProbeStarter); ok {
		return p.ProbeStarted
	}
	return nil
}

func (os Observers) ProbeStarted(pi ProbeInfo) {
	for _, o := range os {
		if p, ok := o.(ProbeStarter); ok {
			p.ProbeStarted(pi)
		}
	}
}
