package study

import (
	"fmt"
	"io"

	"github.com/kbench/kbench/internal/ombresult"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// OMBRun is what OMB's result writer needs of the OMB files a plan was
// translated from. A workload or driver without a name is called after
// its file (OMB would write null, which its chart script cannot read).
func OMBRun(src *plan.OMBSource) ombresult.Run {
	w, d := src.Workload, src.Driver
	run := ombresult.Run{
		Workload: w.Name, Driver: d.Name, MessageSize: int64(w.MessageSize),
		Topics: w.Topics, Partitions: w.PartitionsPerTopic,
		ProducersPerTopic: w.ProducersPerTopic, ConsumersPerTopic: w.ConsumerPerSubscription,
		SubscriptionsPerTopic: w.SubscriptionsPerTopic, Warmup: w.WarmupDuration,
	}
	if run.Workload == "" {
		run.Workload = src.WorkloadFile
	}
	if run.Driver == "" {
		run.Driver = "Kafka"
	}
	for _, t := range src.Topics {
		run.Producers = append(run.Producers, t.Producers)
		run.Consumers = append(run.Consumers, t.Subscriptions...)
	}
	return run
}

// writeOMBResult writes OMB's result of the run in dir (and at extra, from
// --omb-result); the final write says on log which repeats it could not
// make.
func writeOMBResult(log io.Writer, dir, extra string, doc *result.Document, src *plan.OMBSource, final bool) error {
	written, err := ombresult.WriteAll(dir, extra, doc, OMBRun(src))
	for _, s := range written.Skipped {
		if !final {
			break
		}
		fmt.Fprintf(log, "kbench: OMB's result not written for %s\n", s)
	}
	return err
}
