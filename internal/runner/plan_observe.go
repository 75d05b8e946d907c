package runner

import (
	"time"

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
}

func repeatInfo(sc *plan.Scenario, index, scenarios, repeat, repeats int) RepeatInfo {
	ri := RepeatInfo{Scenario: index, Scenarios: scenarios, Name: sc.Name, Repeat: repeat, Repeats: repeats, Started: time.Now()}
	for _, w := range sc.Workloads {
		ri.Workloads = append(ri.Workloads, WorkloadInfo{Name: w.Name, Type: w.Type, Records: w.Records, Duration: w.Duration, StartAfter: w.StartAfter})
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
