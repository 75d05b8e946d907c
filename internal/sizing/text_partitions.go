package sizing

import (
	"fmt"
	"math"
	"path/filepath"
)

// writePartitions prints the partition guidance: what the measurements ask
// for, which documents they came from, how to measure what is missing, and
// the rule-of-thumb ceiling.
func writePartitions(p *printer, e *Estimate) {
	in, pt := e.Input, e.Partitions
	p.printf("\nPartitions\n")
	side := func(label, verb string, pr *PartitionRate, n int) {
		if pr == nil {
			p.line(label, "not measured")
			return
		}
		p.line(label, "one partition %s %s rec/s (%s)", verb, num(pr.RecordsPerSec), pr.From)
		p.line("", "%s rec/s / %s rec/s = %s → at least %s", num(in.Rate.PerSec), num(pr.RecordsPerSec),
			num(in.Rate.PerSec/pr.RecordsPerSec), plural(n, "partition", "partitions"))
	}
	side("producers", "takes", in.Measured.Producer, pt.ForProducers)
	side("consumers", "is read at", in.Measured.Consumer, pt.ForConsumers)
	switch {
	case pt.ForProducers > 0 && pt.ForConsumers > 0:
		p.line("partitions", "= max(%d, %d) = %d", pt.ForProducers, pt.ForConsumers, pt.Needed)
	case pt.Needed > 0:
		p.line("partitions", "at least %d, from one side only; measure the other too", pt.Needed)
	}
	if pt.Needed > 0 {
		if pt.Recommended != pt.Needed {
			p.line("", "rounded up to a multiple of %s, so leaders spread evenly: %d", brokers(in), pt.Recommended)
		}
		p.line("recommended", "%s; each consumer group can then run up to %d consumers in parallel",
			plural(pt.Recommended, "partition", "partitions"), pt.Recommended)
	}
	writeSources(p, e)
	writeHowToMeasure(p, e)
	p.line("rule of thumb", "at most 100 × %s × %d replication = %s partitions per broker, replicas included,",
		brokers(in), in.Replication, num(float64(pt.CeilingPerBroker)))
	p.line("", "when latency matters (the MSK partition study); this topic alone may reach %s × %d / %d = %s partitions",
		num(float64(pt.CeilingPerBroker)), in.Brokers, in.Replication, num(float64(pt.MaxForTopic)))
	if pt.Recommended > 0 {
		verdict := "within the limit"
		if pt.ReplicasPerBroker > float64(pt.CeilingPerBroker) {
			verdict = "over the limit: add brokers, or make each partition faster (larger batches, faster consumers)"
		}
		p.line("", "%d partitions × %d / %s = %s replicas per broker: %s",
			pt.Recommended, in.Replication, brokers(in), num(pt.ReplicasPerBroker), verdict)
	}
}

// writeSources lists every result document read, used or not, with the
// caveats that make its figure less trustworthy.
func writeSources(p *printer, e *Estimate) {
	label := "results"
	for _, s := range e.Input.Measured.Sources {
		name := filepath.ToSlash(s.Path)
		if s.Skipped != "" && s.Partitions == 0 {
			p.line(label, "%s: %s, skipped: %s", name, s.Kind, s.Skipped)
			label = ""
			continue
		}
		how := ""
		if s.SteadyState {
			how = " (steady state)"
		}
		p.line(label, "%s: %s, %s rec/s%s on %s = %s rec/s per partition", name, s.Kind, num(s.RecordsPerSec), how,
			plural(s.Partitions, "partition", "partitions"), num(s.PerPartition()))
		label = ""
		if s.Skipped != "" {
			p.line("", "  skipped: %s", s.Skipped)
		}
		if s.TargetRate > 0 {
			p.line("", "  rate-limited to %s rec/s: shows the limit, not what a partition can take", num(s.TargetRate))
		}
		if want := e.Input.RecordSize.Bytes; s.RecordBytes > 0 && math.Abs(s.RecordBytes-want) > 0.1*want {
			p.line("", "  its records average %s B, not %s B: records per second depend on record size;", num(math.Round(s.RecordBytes)), num(want))
			p.line("", "  measure with --record-size %d", int64(math.Round(want)))
		}
	}
}

// writeHowToMeasure says which kbench runs give the missing per-partition
// figures: one partition isolates what a single partition sustains.
func writeHowToMeasure(p *printer, e *Estimate) {
	in := e.Input
	prod, cons := in.Measured.Producer == nil, in.Measured.Consumer == nil
	if !prod && !cons {
		return
	}
	p.line("to measure", "on a topic with 1 partition and replication %d (the consumer test reads what the producer wrote):", in.Replication)
	if prod {
		p.line("", "  kbench producer-perf-test --topic size-1p --num-records 1000000 --record-size %s --throughput -1 \\", fmt.Sprint(int64(math.Round(in.RecordSize.Bytes))))
		p.line("", "    --producer-props bootstrap.servers=HOST:9092 acks=all --json p.json")
	}
	if cons {
		p.line("", "  kbench consumer-perf-test --topic size-1p --messages 1000000 --bootstrap-server HOST:9092 --json c.json")
	}
	p.line("", "then add --from-results with those files (or their folder), or give --partition-producer-rate")
	p.line("", "and --partition-consumer-rate by hand, such as 2500/s.")
}
