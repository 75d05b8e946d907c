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

// Kind is one workload kind, registered once: the name plans give it as
// their type, what the plan's checks take it to do (its rule), and its
// builder. A kind that measures a section of its own registers the
// section's type with measure.RegisterSection in its file.
type Kind struct {
	Name  string
	Rule  plan.TypeRule
	build kindBuilder
	// ceiling is the kind's theoretical maximum records/s, for readers
	// with a processing time per record (nil: none; ceiling.go).
	ceiling ceilingOf
}

// Kinds returns the workload kinds, in the order the docs list them (a
// fresh slice: a test may add a kind to its own copy).
func Kinds() []Kind {
	return []Kind{
		{plan.Produce, plan.ProduceRule, buildProduce, nil},
		{plan.Consume, plan.ConsumeRule, buildConsume, consumeCeiling},
		{plan.ShareConsume, plan.ShareConsumeRule, buildShareConsume, shareCeiling},
		{plan.EndToEnd, plan.EndToEndRule, buildEndToEnd, nil},
		{plan.RoundTrip, plan.RoundTripRule, buildRoundTrip, nil},
	}
}

// PlanTypes hands the kinds' names and rules to the plan parser: every
// plan.Load, plan.Parse and plan.LoadOMB of a plan to run takes them.
func PlanTypes() []plan.Option { return planTypesOf(Kinds()) }

func planTypesOf(ks []Kind) []plan.Option {
	out := make([]plan.Option, len(ks))
	for i, k := range ks {
		out[i] = plan.WithType(k.Name, k.Rule)
	}
	return out
}

// builderOf finds a kind's builder by its name.
func builderOf(ks []Kind, name string) (kindBuilder, bool) {
	for _, k := range ks {
		if k.Name == name {
			return k.build, true
		}
	}
	return nil, false
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
