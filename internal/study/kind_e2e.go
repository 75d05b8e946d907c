package study

import "github.com/kbench/kbench/internal/workload"

// buildEndToEnd builds an "end-to-end" workload: producers, and a reader
// of their records.
func buildEndToEnd(in kindInput) (workload.Spec, map[string]string, error) {
	send, settings, err := producerSpec(in.plan, in.w, messageSeed(in.b.seed, in.w, in.index), in.props(), in.b)
	if err != nil {
		return nil, nil, err
	}
	// Its properties are the producer's; its reader takes the cluster's
	// only.
	props := clientProps(in.plan.Cluster.Properties, nil, in.bootstrap)
	read, _, err := consumerSpec(in.w, props, in.b)
	if err != nil {
		return nil, nil, err
	}
	send.IntervalHistograms, read.IntervalHistograms = in.omb(), in.omb()
	return workload.EndToEnd{Send: *send, Read: *read}, settings, nil
}
