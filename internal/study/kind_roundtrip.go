package study

import (
	"fmt"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload"
)

// buildRoundTrip builds a "round-trip" workload: producers of the
// service's input, and one reader of its reply topic that matches the
// outputs.
func buildRoundTrip(in kindInput) (workload.Spec, map[string]string, error) {
	r := in.w.Reply
	if r == nil {
		return nil, nil, fmt.Errorf("workload %s: no reply topic", in.w.Name)
	}
	send, settings, err := producerSpec(in.plan, in.w, messageSeed(in.b.seed, in.w, in.index), in.props(), in.b)
	if err != nil {
		return nil, nil, err
	}
	// Its properties are the producer's; its reader takes the cluster's
	// only, as an end-to-end workload's.
	props := clientProps(in.plan.Cluster.Properties, nil, in.bootstrap)
	rw := *in.w
	rw.Topic = r.Topic
	read, _, err := consumerSpec(&rw, props, in.b)
	if err != nil {
		return nil, nil, err
	}
	read.Decode = nil // the service's outputs are its own, whatever the input's format
	send.IntervalHistograms = in.omb()
	return workload.RoundTrip{Send: *send, Read: *read, Key: r.Match == plan.MatchKey, Timeout: r.Timeout}, settings, nil
}
