package study

import (
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

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

func repeatInfo(sc *plan.Scenario, index, scenarios, repeat, repeats int) observe.RepeatInfo {
	ri := observe.RepeatInfo{Scenario: index, Scenarios: scenarios, Name: sc.Name, Repeat: repeat, Repeats: repeats, Started: time.Now()}
	for _, w := range sc.Workloads {
		ri.Workloads = append(ri.Workloads, observe.WorkloadInfo{Name: w.Name, Type: w.Type, Sends: w.Sends(), Reads: w.Reads(),
			Records: w.Records, Duration: w.Duration, StartAfter: w.StartAfter,
			AfterWorkload: w.AfterWorkload, Backlog: w.Backlog, Idle: idleOf(&w)})
	}
	return ri
}

// observeProducer and observeConsumer connect a workload's spec to the
// observer, if there is one.
func (b *build) observeProducer(name string, spec *produce.ProducerSpec) {
	if o := b.observer; o != nil {
		spec.OnSeries = func(iv measure.Interval) { o.ProducerInterval(name, iv) }
	}
}

func (b *build) observeConsumer(name string, spec *consume.ConsumerSpec) {
	if o := b.observer; o != nil {
		spec.OnInterval = func(iv measure.ConsumerInterval) { o.ConsumerInterval(name, iv) }
		spec.OnLag = func(s measure.LagSample) { o.ConsumerLag(name, s.Records) }
	}
}
