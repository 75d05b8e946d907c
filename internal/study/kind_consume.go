package study

import "github.com/kbench/kbench/internal/workload"

// buildConsume builds a "consume" workload: consumer clients.
func buildConsume(in kindInput) (workload.Spec, map[string]string, error) {
	spec, settings, err := consumerSpec(in.w, in.props(), in.b)
	if err != nil {
		return nil, nil, err
	}
	spec.IntervalHistograms = in.omb()
	spec.Seed = messageSeed(in.b.seed, in.w, in.index)
	if p := in.w.Processing; p != nil {
		spec.Processing = processingTime(p)
	}
	return workload.Consume{Spec: *spec}, settings, nil
}
