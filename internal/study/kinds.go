package study

import (
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload"
)

// kindInput is what a kind's builder gets: one workload of a plan.
type kindInput struct {
	plan      *plan.Plan
	w         *plan.Workload
	index     int // of the workload in its scenario
	bootstrap string
	b         *build
}

// kindBuilder turns a plan workload into the spec of its kind, with its
// effective client properties (secrets redacted) for the result.
type kindBuilder func(in kindInput) (workload.Spec, map[string]string, error)

// kinds returns the plan's workload types and their builders, a fresh map
// (a test may add a kind to its own copy). A new kind is a file with its
// builder and a line here.
func kinds() map[string]kindBuilder {
	return map[string]kindBuilder{
		plan.Produce:      buildProduce,
		plan.Consume:      buildConsume,
		plan.ShareConsume: buildShareConsume,
		plan.EndToEnd:     buildEndToEnd,
	}
}

// props is the workload's client properties in the order Java applies
// them (clientProps).
func (in kindInput) props() []kafkaconf.Prop {
	return clientProps(in.plan.Cluster.Properties, in.w.Properties, in.bootstrap)
}

// omb reports whether the plan came from OMB files: OMB's result reads
// each period's percentiles from the intervals' histograms; other plans'
// intervals keep none (about 1.5 KB each).
func (in kindInput) omb() bool { return in.plan.OMB != nil }
