package study

import (
	"fmt"

	"github.com/kbench/kbench/internal/workload"
)

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

// consumeCeiling: a member processes one record at a time, and a consumer
// group gives each partition to one member, so at most min(members,
// partitions) of them work, each at 1 ÷ processing records/s.
func consumeCeiling(in ceilingInput) (float64, string, bool) {
	c, ok := in.spec.(workload.Consume)
	if !ok {
		return 0, "", false
	}
	working := min(c.Spec.Clients, in.partitions)
	return float64(working) / in.processing.Seconds(),
		fmt.Sprintf("min(%d consumers, %d partitions) ÷ %s per record", c.Spec.Clients, in.partitions, in.processing), true
}
