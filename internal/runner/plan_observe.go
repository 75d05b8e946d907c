package runner

import (
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload"
)

// Observer follows a plan run as it goes: the live terminal view and the
// metrics endpoint. The interval methods are called from the workloads'
// reporter goroutines, concurrently with each other: implementations lock.
type Observer interface {
	RepeatStarted(RepeatInfo)
	// ProducerInterval gets each interval of a producing workload's series
	// (every record, warm-up included, with the failures so far).
	ProducerInterval(workload string, iv workload.Interval)
	// ConsumerInterval gets what a consuming workload read since its
	// last call.
	ConsumerInterval(workload string, iv workload.ConsumerInterval)
	ConsumerLag(workload string, records int64)
	// RepeatEnded gets the repeat as result.json will hold it.
	RepeatEnded(RepeatInfo, result.Repeat)
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
// or neither (until the cluster or an idle timeout ends it).
type WorkloadInfo struct {
	Name, Type string
	Records    int64
	Duration   time.Duration
	StartAfter time.Duration
	// AfterWorkload and Backlog are the other conditions of a late start
	// (start_after a workload's end, backlog: bytes written).
	AfterWorkload string
	Backlog       int64
	// Idle, when set, says whether the workload's load asks for nothing at
	// t since its start (a ramp at 0 virtual users or a rate stage at 0):
	// no record is due then, so none completing is no stall.
	Idle func(t time.Duration) bool
}

// idleOf is a workload's Idle: nil unless it ramps from or to zero.
func idleOf(w *plan.Workload) func(time.Duration) bool {
	switch {
	case len(w.VUStages) > 0:
		ramp, err := load.NewVURamp(w.VUs, w.VUStages)
		if err != nil {
			return nil
		}
		return func(t time.Duration) bool { return ramp.Active(t) == 0 }
	case len(w.Stages) > 0:
		stages := w.Stages
		return func(t time.Duration) bool { return load.RateAt(stages, t) == 0 }
	}
	return nil
}

func repeatInfo(sc *plan.Scenario, index, scenarios, repeat, repeats int) RepeatInfo {
	ri := RepeatInfo{Scenario: index, Scenarios: scenarios, Name: sc.Name, Repeat: repeat, Repeats: repeats, Started: time.Now()}
	for _, w := range sc.Workloads {
		ri.Workloads = append(ri.Workloads, WorkloadInfo{Name: w.Name, Type: w.Type, Records: w.Records, Duration: w.Duration, StartAfter: w.StartAfter,
			AfterWorkload: w.AfterWorkload, Backlog: w.Backlog, Idle: idleOf(&w)})
	}
	return ri
}

// observeProducer and observeConsumer connect a workload's spec to the
// observer, if there is one.
func (b *build) observeProducer(name string, spec *workload.ProducerSpec) {
	if o := b.observer; o != nil {
		spec.OnSeries = func(iv workload.Interval) { o.ProducerInterval(name, iv) }
	}
}

func (b *build) observeConsumer(name string, spec *workload.ConsumerSpec) {
	if o := b.observer; o != nil {
		spec.OnInterval = func(iv workload.ConsumerInterval) { o.ConsumerInterval(name, iv) }
		spec.OnLag = func(s workload.LagSample) { o.ConsumerLag(name, s.Records) }
	}
}

// WorkloadEnder is an Observer that wants to know when each workload of
// the running repeat has ended.
type WorkloadEnder interface {
	WorkloadEnded(workload string)
}

// endedOf is the observer's WorkloadEnded, or nil.
func endedOf(o Observer) func(string) {
	if e, ok := o.(WorkloadEnder); ok {
		return e.WorkloadEnded
	}
	return nil
}

func (os Observers) WorkloadEnded(w string) {
	for _, o := range os {
		if e, ok := o.(WorkloadEnder); ok {
			e.WorkloadEnded(w)
		}
	}
}

// Observers tells each of several observers, in order.
type Observers []Observer

func (os Observers) RepeatStarted(ri RepeatInfo) {
	for _, o := range os {
		o.RepeatStarted(ri)
	}
}

func (os Observers) ProducerInterval(w string, iv workload.Interval) {
	for _, o := range os {
		o.ProducerInterval(w, iv)
	}
}

func (os Observers) ConsumerInterval(w string, iv workload.ConsumerInterval) {
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
