package study

import "github.com/kbench/kbench/internal/workload"

// buildProduce builds a "produce" workload: producer clients.
func buildProduce(in kindInput) (workload.Spec, map[string]string, error) {
	spec, settings, err := producerSpec(in.plan, in.w, messageSeed(in.b.seed, in.w, in.index), in.props(), in.b)
	if err != nil {
		return nil, nil, err
	}
	spec.IntervalHistograms = in.omb()
	return workload.Produce{Spec: *spec}, settings, nil
}
