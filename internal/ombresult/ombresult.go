// Package ombresult writes a kbench run of an OpenMessaging Benchmark (OMB)
// workload in OMB's own result format (its TestResult JSON), so that OMB's
// chart script and whatever else reads OMB's results read kbench's. Learn
// Run (what of the OMB files the writer needs) and Build first.
//
// Everything comes from the result document: the periods' counts from the
// workloads' interval series, their percentiles from the intervals'
// histograms, the aggregated figures from the workloads' histograms.
package ombresult

import (
	"fmt"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// Period is OMB's reporting period: it prints and keeps its figures every
// 10 s (WorkloadGenerator.printAndCollectStats).
const Period = 10 * time.Second

// Run is what the writer needs of the OMB files a kbench plan was
// translated from, and which of the plan's workloads were OMB's producers
// and consumers.
type Run struct {
	Workload string // the workload's name field
	Driver   string // the driver's name field
	// The header fields, as OMB copies them from the workload file
	// (consumersPerTopic is its consumerPerSubscription).
	MessageSize           int64
	Topics                int
	Partitions            int
	ProducersPerTopic     int
	ConsumersPerTopic     int
	SubscriptionsPerTopic int
	// Warmup is the warm-up time: OMB's result covers the test after it.
	Warmup time.Duration
	// Producers and Consumers are the names of the produce and consume
	// workloads made of OMB's producers and subscriptions.
	Producers []string
	Consumers []string
}

// Record is r as result.json keeps it (PlanRun.OMB).
func (r Run) Record() *result.OMBRun {
	return &result.OMBRun{
		Workload: r.Workload, Driver: r.Driver, MessageSize: r.MessageSize, Topics: r.Topics, Partitions: r.Partitions,
		ProducersPerTopic: r.ProducersPerTopic, ConsumersPerTopic: r.ConsumersPerTopic, SubscriptionsPerTopic: r.SubscriptionsPerTopic,
		WarmupSeconds: r.Warmup.Seconds(), Producers: r.Producers, Consumers: r.Consumers,
	}
}

// RunOf is the Run result.json kept (PlanRun.OMB).
func RunOf(o *result.OMBRun) Run {
	return Run{
		Workload: o.Workload, Driver: o.Driver, MessageSize: o.MessageSize, Topics: o.Topics, Partitions: o.Partitions,
		ProducersPerTopic: o.ProducersPerTopic, ConsumersPerTopic: o.ConsumersPerTopic, SubscriptionsPerTopic: o.SubscriptionsPerTopic,
		Warmup: time.Duration(o.WarmupSeconds * float64(time.Second)), Producers: o.Producers, Consumers: o.Consumers,
	}
}

// TestResult is OMB's result (io.openmessaging.benchmark.TestResult): one
// entry per period in each list, latencies in milliseconds except the
// publish delay (microseconds, whole), as OMB writes them.
type TestResult struct {
	Workload          string
	Driver            string
	MessageSize       int64
	Topics            int
	Partitions        int
	ProducersPerTopic int
	ConsumersPerTopic int

	// PeriodSeconds is each period's length (not in OMB's JSON): rate ×
	// length is the period's count.
	PeriodSeconds []float64

	PublishRate      []float64
	PublishErrorRate []float64
	ConsumeRate      []float64
	Backlog          []int64

	Publish      Series // ms
	PublishDelay Series // µs, whole numbers
	EndToEnd     Series // ms

	AggregatedPublish      Figures
	AggregatedPublishDelay Figures
	AggregatedEndToEnd     Figures

	AggregatedPublishQuantiles      []Quantile
	AggregatedPublishDelayQuantiles []Quantile
	AggregatedEndToEndQuantiles     []Quantile
}

// Figures are one latency's mean, percentiles and maximum.
type Figures struct {
	Avg, P50, P75, P95, P99, P999, P9999, Max float64
}

// Series are one latency's figures per period.
type Series struct {
	Avg, P50, P75, P95, P99, P999, P9999, Max []float64
}

func (s *Series) add(f Figures) {
	s.Avg = append(s.Avg, f.Avg)
	s.P50 = append(s.P50, f.P50)
	s.P75 = append(s.P75, f.P75)
	s.P95 = append(s.P95, f.P95)
	s.P99 = append(s.P99, f.P99)
	s.P999 = append(s.P999, f.P999)
	s.P9999 = append(s.P9999, f.P9999)
	s.Max = append(s.Max, f.Max)
}

// JSON is r as OMB writes it: TestResult's fields in their order, with
// Jackson's pretty printer.
func (r *TestResult) JSON() []byte {
	var w jsonWriter
	w.open()
	w.str("workload", r.Workload)
	w.str("driver", r.Driver)
	w.long("messageSize", r.MessageSize)
	w.long("topics", int64(r.Topics))
	w.long("partitions", int64(r.Partitions))
	w.long("producersPerTopic", int64(r.ProducersPerTopic))
	w.long("consumersPerTopic", int64(r.ConsumersPerTopic))
	w.doubles("publishRate", r.PublishRate)
	w.doubles("publishErrorRate", r.PublishErrorRate)
	w.doubles("consumeRate", r.ConsumeRate)
	w.longs("backlog", r.Backlog)
	writeSeries(&w, "publishLatency", r.Publish, false)
	writeSeries(&w, "publishDelayLatency", r.PublishDelay, true)
	writeFigures(&w, "aggregatedPublishLatency", r.AggregatedPublish, false)
	writeFigures(&w, "aggregatedPublishDelayLatency", r.AggregatedPublishDelay, true)
	w.quantiles("aggregatedPublishLatencyQuantiles", r.AggregatedPublishQuantiles, false)
	w.quantiles("aggregatedPublishDelayLatencyQuantiles", r.AggregatedPublishDelayQuantiles, true)
	writeSeries(&w, "endToEndLatency", r.EndToEnd, false)
	w.quantiles("aggregatedEndToEndLatencyQuantiles", r.AggregatedEndToEndQuantiles, false)
	writeFigures(&w, "aggregatedEndToEndLatency", r.AggregatedEndToEnd, false)
	w.close()
	return w.b.Bytes()
}

// writeSeries writes NAMEAvg, NAME50pct ... NAMEMax; long writes every
// figure but the mean as a whole number (OMB's List<Long>).
func writeSeries(w *jsonWriter, name string, s Series, long bool) {
	w.doubles(name+"Avg", s.Avg)
	for _, f := range []struct {
		suffix string
		vs     []float64
	}{{"50pct", s.P50}, {"75pct", s.P75}, {"95pct", s.P95}, {"99pct", s.P99}, {"999pct", s.P999}, {"9999pct", s.P9999}, {"Max", s.Max}} {
		if long {
			w.longs(name+f.suffix, wholes(f.vs))
		} else {
			w.doubles(name+f.suffix, f.vs)
		}
	}
}

// writeFigures writes the aggregated NAMEAvg, NAME50pct ... NAMEMax.
func writeFigures(w *jsonWriter, name string, f Figures, long bool) {
	w.double(name+"Avg", f.Avg)
	for _, v := range []struct {
		suffix string
		v      float64
	}{{"50pct", f.P50}, {"75pct", f.P75}, {"95pct", f.P95}, {"99pct", f.P99}, {"999pct", f.P999}, {"9999pct", f.P9999}, {"Max", f.Max}} {
		if long {
			w.long(name+v.suffix, int64(v.v))
		} else {
			w.double(name+v.suffix, v.v)
		}
	}
}

func wholes(vs []float64) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// check refuses a Run the writer cannot place.
func (r Run) check() error {
	if len(r.Producers) == 0 {
		return fmt.Errorf("the OMB run names no producing workload")
	}
	return nil
}
