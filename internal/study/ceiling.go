package study

import (
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// Kafka's defaults for what bounds a share group's records in flight:
// group.share.partition.max.record.locks, and the share consumer's
// max.poll.records.
const (
	defaultRecordLocks    = 2000
	defaultMaxPollRecords = 500
	recordLocksConfig     = "group.share.partition.max.record.locks"
)

// ceilingInput is what a kind's theoretical maximum is worked out from:
// the workload as built, its topic's partitions, the share-partitions'
// record locks in force and the mean processing time per record.
type ceilingInput struct {
	spec        workload.Spec
	partitions  int
	recordLocks int
	processing  time.Duration
}

// ceilingOf is a kind's theoretical maximum records/s and the formula
// with the numbers put in; ok false when it has none.
type ceilingOf func(in ceilingInput) (perSec float64, formula string, ok bool)

// ceilings are the theoretical maximum records/s of the scenario's
// readers that take a processing time per record, each by its kind's
// model (docs/share-groups.md, "The theoretical maximum"). brokerConfigs
// are the settings the brokers reported for the scenario (nil: none set).
func ceilings(kinds []Kind, sc *plan.Scenario, built *runner.Scenario, brokerConfigs map[string]string) []result.Ceiling {
	partitions := map[string]int{}
	for _, t := range sc.Topics {
		partitions[t.Name] = t.Partitions
	}
	locks := defaultRecordLocks
	v, ok := brokerConfigs[recordLocksConfig]
	if !ok {
		v, ok = sc.BrokerConfigs[recordLocksConfig]
	}
	if n, err := strconv.Atoi(v); ok && err == nil && n > 0 {
		locks = n
	}
	specs := map[string]workload.Spec{}
	for _, bw := range built.Workloads {
		specs[bw.Name] = bw.Spec
	}
	var out []result.Ceiling
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		in := ceilingInput{spec: specs[w.Name], partitions: partitions[w.Topic], recordLocks: locks, processing: meanProcessing(w.Processing)}
		var of ceilingOf
		for _, k := range kinds {
			if k.Name == w.Type {
				of = k.ceiling
			}
		}
		if of == nil || in.spec == nil || in.partitions <= 0 || in.processing <= 0 {
			continue
		}
		if perSec, formula, ok := of(in); ok {
			out = append(out, result.Ceiling{Workload: w.Name, RecordsPerSec: perSec, Formula: formula})
		}
	}
	return out
}

// meanProcessing is a processing time's mean (0: none).
func meanProcessing(p *plan.Processing) time.Duration {
	switch {
	case p == nil:
		return 0
	case p.Distribution == "exponential":
		return p.Mean
	case p.Distribution == "uniform":
		return (p.Min + p.Max) / 2
	}
	return p.Fixed
}
