package compat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/summary"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The producer-perf-test drop-in run: the producer workload built from the
// Apache tool's arguments, run through the runner, and its lines printed
// in the tool's format, with kbench's additions on stderr and in --json.

// RunProducer runs the producer-perf-test workload through the runner (which prepares the topic)
// and reports it, writing every result measured even when the run fails
// part way.
func RunProducer(ctx context.Context, env Env, pa *ProducerArgs, pc *kafkaconf.Producer, props []kafkaconf.Prop, maxRecord int,
	values payload.Source, keys *payload.Keys, drain time.Duration) error {
	opts, err := pc.Opts(maxRecord)
	if err != nil {
		return err
	}
	var e2e *consume.ConsumerSpec
	if pa.EndToEnd {
		if e2e, err = e2eConsumerSpec(env, props, pc, pa); err != nil {
			return fmt.Errorf("--e2e: %w", err)
		}
	}
	if pa.WarmupRecords > 0 {
		fmt.Fprintf(env.Stdout, "Warmup first %d records. Steady state results will print after the complete test summary.\n", pa.WarmupRecords)
	}
	var txEvery time.Duration
	if pc.TransactionalID != "" {
		txEvery = DefaultTransactionDuration
		if pa.TransactionMs > 0 {
			txEvery = time.Duration(pa.TransactionMs) * time.Millisecond
		}
	}
	var metrics []*engine.ProducerMetrics
	if pa.PrintMetrics {
		for i := range pa.Producers {
			metrics = append(metrics, engine.NewProducerMetrics(kafkaconf.ClientID(pc.ClientID, "", i), env.Version, pc.BufferMemory))
		}
	}
	steadyAnnounced := false
	spec := produce.ProducerSpec{
		Topic:               pa.Topic,
		Clients:             pa.Producers,
		Records:             pa.NumRecords,
		Duration:            pa.Duration,
		Rate:                pa.Throughput,
		Warmup:              pa.WarmupRecords,
		Values:              values,
		Keys:                keys,
		ClientOpts:          producerClientOpts(opts, pc, metrics),
		TransactionDuration: txEvery,
		Interval:            pa.ReportingInterval,
		OnInterval: func(iv measure.Interval) {
			if iv.Final {
				return // the Apache tool prints only whole intervals
			}
			if iv.Steady && !steadyAnnounced {
				steadyAnnounced = true
				fmt.Fprintln(env.Stdout, "In steady state.")
			}
			lat := iv.WindowStats
			if iv.Sent.LatCount > 0 {
				lat = iv.Sent // on a schedule: from the actual send, as the Apache tool's
			}
			WindowLine(env.Stdout, iv.Count, iv.Length, iv.Bytes, lat.AvgLatencyMicros()/1000, float64(lat.LatMaxUs)/1000)
		},
		OnError: firstErrors(env.Stderr, "produce failed"),
		OnStall: stallPrinter(env.Stderr),
		Drain:   drain,
		Stall:   drain,
		Abort:   env.Abort,
	}
	prom, err := serveMetrics(ctx, env, pa.Metrics, ProducerTool, observe.WorkloadInfo{Name: "producers", Type: "produce",
		Sends: true, Reads: e2e != nil, Records: pa.NumRecords, Duration: pa.Duration})
	if err != nil {
		return err
	}
	var final result.Workload // what the endpoint is told at the end
	defer func() { prom.ended(final) }()
	spec.OnSeries = prom.producerSeries("producers")
	w := runner.Workload{Name: "producers", Spec: workload.Produce{Spec: spec}}
	if e2e != nil {
		w.Spec = workload.EndToEnd{Send: spec, Read: *e2e}
	}
	started := time.Now()
	out, runErr := env.Run.Or()(ctx, runner.Scenario{
		Name:  ProducerTool,
		Admin: opts,
		Topics: []runner.Topic{{Existing: kadmin.Reuse, TopicSpec: kadmin.TopicSpec{
			Name: pa.Topic, Partitions: pa.Partitions, ReplicationFactor: pa.ReplicationFactor,
			PartitionsFlag: "--partitions", ReplicationFlag: "--replication-factor",
		}}},
		Workloads: []runner.Workload{w},
	})
	if out == nil || out.Workloads[0].Publish == nil {
		// Nothing measured (the cluster did not answer, the topic could
		// not be made): the JSON says why, with the settings, as the other
		// drop-ins' do.
		if pa.JSONPath != "" {
			doc := producerDocument(env, pa, pc, kadmin.TopicInfo{Name: pa.Topic}, nil, started, asRecorded(ctx, runErr))
			if out != nil {
				doc.BrokerVersions = out.BrokerVersions
			}
			runErr = errors.Join(runErr, result.Write(pa.JSONPath, doc))
		}
		return runErr
	}
	res, cpu := out.Workloads[0].Publish, out.CPU
	printProducerTotals(env.Stdout, res)
	printIntendedLatency(env.Stderr, res)
	printUnresolved(env.Stderr, res)
	if len(metrics) > 0 {
		var table []measure.Metric
		now := time.Now()
		for _, m := range metrics {
			table = append(table, m.Metrics(now)...)
		}
		PrintMetrics(env.Stdout, table)
	}
	var e2eLat *result.Latency
	if e2e != nil {
		var err error
		e2eLat, err = printE2E(env.Stdout, out.Workloads[0].EndToEnd, res.Acked)
		runErr = errors.Join(runErr, err)
	}
	summary, err := summary.Producer(res, pa.Throughput, cpu)
	if err != nil {
		return errors.Join(runErr, err)
	}
	final = result.Workload{Name: "producers", Producer: summary}
	runErr = errors.Join(runErr, failedRecordsError(res))
	if pa.JSONPath != "" {
		doc := producerDocument(env, pa, pc, out.Topics[0], summary, started, asRecorded(ctx, runErr))
		doc.BrokerVersions = out.BrokerVersions
		doc.EndToEnd = e2eLat
		if err := result.Write(pa.JSONPath, doc); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	return runErr
}

// producerClientOpts gives each client its options: what plans' clients
// get too (kafkaconf's ClientOpts: its own client id and transactional id,
// or permission to give up on in-flight records after the delivery
// timeout), and its metrics hooks.
func producerClientOpts(opts []kgo.Opt, pc *kafkaconf.Producer, metrics []*engine.ProducerMetrics) func(int) []kgo.Opt {
	return engine.PerClient(opts, func(i int) []kgo.Opt {
		own := pc.ClientOpts("", i)
		if i < len(metrics) {
			own = append(own, metrics[i].Hooks())
		}
		return own
	})
}

func printProducerTotals(w io.Writer, res *produce.ProducerResult) {
	line := func(acked, bytes int64, elapsed time.Duration, h *measure.Histogram, steady bool) {
		avg := math.NaN() // what the Apache tool prints when nothing was acknowledged
		if acked > 0 {
			avg = h.Mean() / 1000
		}
		TotalLine(w, acked, steady, elapsed, bytes, avg, float64(h.Max())/1000, Percentiles{
			P50: roundMs(h.Quantile(0.50)), P95: roundMs(h.Quantile(0.95)),
			P99: roundMs(h.Quantile(0.99)), P999: roundMs(h.Quantile(0.999)),
		})
	}
	// The Apache tool's latency runs from the actual send: on a schedule
	// (--throughput) kbench's own, from the intended send time, is said on
	// stderr (printIntendedLatency).
	fromSend := func(lat, sent *measure.Histogram) *measure.Histogram {
		if sent != nil {
			return sent
		}
		return lat
	}
	line(res.Acked, res.Bytes, res.End.Sub(res.Start), fromSend(res.Latency, res.SentLatency), false)
	if res.Steady != nil && !res.Steady.Start.IsZero() {
		line(res.Steady.Acked, res.Steady.Bytes, res.Steady.End.Sub(res.Steady.Start), fromSend(res.Steady.Latency, res.Steady.SentLatency), true)
	}
}

// printIntendedLatency says, at a fixed rate, kbench's latency from each
// record's intended send time beside the Apache lines' (from the actual
// send): a broker that stalls the senders shows here, not there. Nothing
// off a schedule, where the two are one.
func printIntendedLatency(w io.Writer, res *produce.ProducerResult) {
	if !res.LatencyFromIntended || res.SentLatency == nil || res.Acked == 0 {
		return
	}
	h := res.Latency
	delay := ""
	if d := res.SendDelay; d != nil {
		delay = fmt.Sprintf("; publish delay (intended to actual send) avg %.2f ms, p99 %d ms, max %.2f ms", d.Mean()/1000, roundMs(d.Quantile(0.99)), float64(d.Max())/1000)
	}
	fmt.Fprintf(w, "kbench: latency from the intended send times (the lines above count from the actual send, as the Apache tool does): %.2f ms avg, %.2f ms max, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th%s\n",
		h.Mean()/1000, float64(h.Max())/1000, roundMs(h.Quantile(0.50)), roundMs(h.Quantile(0.95)), roundMs(h.Quantile(0.99)), roundMs(h.Quantile(0.999)), delay)
}

// resultTopic is the topic as the result document records it.
func resultTopic(t kadmin.TopicInfo) *result.Topic {
	return &result.Topic{Name: t.Name, Partitions: t.Partitions, ReplicationFactor: t.ReplicationFactor}
}

// roundMs converts microseconds to whole milliseconds, rounding half up.
func roundMs(us int64) int64 { return (us + 500) / 1000 }

func failedRecordsError(res *produce.ProducerResult) error {
	if res.Failed == 0 {
		return nil
	}
	kinds := make([]string, 0, len(res.Errors))
	for k := range res.Errors {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return res.Errors[kinds[i]] > res.Errors[kinds[j]] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", res.Errors[k], k)
	}
	return fmt.Errorf("%d of %d records failed (%s)", res.Failed, res.Failed+res.Acked+res.NotSent, strings.Join(parts, ", "))
}

func producerDocument(env Env, pa *ProducerArgs, pc *kafkaconf.Producer, topic kadmin.TopicInfo,
	p *result.Producer, started time.Time, runErr error) *result.Document {
	cfg := pc.Settings()
	tool := map[string]string{
		"topic":       pa.Topic,
		"num.records": strconv.FormatInt(pa.NumRecords, 10),
		"throughput":  strconv.FormatFloat(pa.Throughput, 'f', -1, 64),
		"producers":   strconv.Itoa(pa.Producers),
	}
	switch {
	case pa.PayloadFile != "":
		tool["payload.file"] = pa.PayloadFile
	case pa.PayloadMonotonic:
		tool["payload.monotonic"] = "true"
	default:
		tool["record.size"] = strconv.Itoa(pa.RecordSize)
	}
	if pa.Duration > 0 {
		tool["duration"] = pa.Duration.String()
	}
	if pa.WarmupRecords > 0 {
		tool["warmup.records"] = strconv.FormatInt(pa.WarmupRecords, 10)
	}
	for k, v := range tool {
		cfg["kbench."+k] = v
	}
	doc := result.New(result.KindProducerPerf, env.Version, started, cfg)
	if topic.Partitions > 0 { // known: the run prepared it
		doc.Topic = resultTopic(topic)
	}
	doc.Producer = p
	doc.Finish(runErr)
	return doc
}

// e2eConsumerSpec is, for --e2e, a consumer of the producer's topic with
// the producer's connection settings; the runner starts it at the topic's
// end before the producers, and stops it once it has read every
// acknowledged record (at most 30 s after the producers finish).
func e2eConsumerSpec(env Env, props []kafkaconf.Prop, pc *kafkaconf.Producer,
	pa *ProducerArgs) (*consume.ConsumerSpec, error) {
	cprops := append(append([]kafkaconf.Prop(nil), props...),
		kafkaconf.Prop{Key: "client.id", Value: pc.ClientID + "-e2e", Source: "--e2e"},
		kafkaconf.Prop{Key: "check.crcs", Value: "false", Source: "--e2e"})
	cc, warnings, err := kafkaconf.ParseConsumer(cprops)
	for _, w := range E2EWarnings(nil, warnings) {
		fmt.Fprintf(env.Stderr, "kbench: warning: --e2e consumer: %s\n", w)
	}
	if err != nil {
		return nil, err
	}
	cc.BootstrapServers = pc.BootstrapServers
	copts, err := cc.Opts()
	if err != nil {
		return nil, err
	}
	return &consume.ConsumerSpec{
		Topics:     []string{pa.Topic},
		ClientOpts: func(int) []kgo.Opt { return copts },
		Interval:   pa.ReportingInterval,
	}, nil
}

// printE2E prints kbench's end-to-end line for --e2e and returns the
// latency for the result document.
func printE2E(w io.Writer, res *consume.ConsumerResult, acked int64) (*result.Latency, error) {
	if res == nil {
		return nil, fmt.Errorf("--e2e consumer measured nothing")
	}
	_, lat, err := summary.Consumer(res, 0)
	if err != nil {
		return nil, err
	}
	if lat == nil {
		return nil, fmt.Errorf("--e2e consumer measured no latency")
	}
	ms := func(us int64) int64 { return roundMs(us) }
	fmt.Fprintf(w, "%d records consumed end to end, %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
		lat.Count, lat.Mean/1000, float64(lat.Max)/1000, ms(lat.P50), ms(lat.P95), ms(lat.P99), ms(lat.P999))
	return lat, nil
}

// firstErrors returns a workload's OnError callback that prints the first
// error of each kind once per run, as "kbench: what: error". The workload
// calls it once per kind and client, from the clients' goroutines, so the
// guard is shared and locked (errors are rare: not the hot path).
func firstErrors(w io.Writer, what string) func(kind string, err error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(kind string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if seen[kind] {
			return
		}
		seen[kind] = true
		// A broker error's text holds its kind already
		// ("MESSAGE_TOO_LARGE: The request included ...").
		msg := err.Error()
		if !strings.Contains(msg, kind+": ") {
			msg = kind + ": " + msg
		}
		fmt.Fprintf(w, "kbench: %s: %s (further %s errors are counted, not printed)\n", what, msg, kind)
	}
}

// stallPrinter says on stderr, as it happens, that no record is being
// acknowledged (the Apache lines on stdout only show 0 records sent).
func stallPrinter(w io.Writer) func(measure.Stall) {
	return func(s measure.Stall) { fmt.Fprintf(w, "kbench: %s\n", s) }
}

// printUnresolved reports records whose outcome is unknown: cancelled by
// Ctrl-C or the drain bound while the broker had not answered. Their wait
// is not in the latency figures, so it is said here.
func printUnresolved(w io.Writer, res *produce.ProducerResult) {
	if res.NotSent > 0 {
		fmt.Fprintf(w, "kbench: %d records not sent: the run ended before it sent them\n", res.NotSent)
	}
	if res.Unresolved == 0 {
		return
	}
	fmt.Fprintf(w, "kbench: %d records unresolved when the run ended (cancelled before an acknowledgement; the broker may have them); the oldest had waited %s, which the latency figures above leave out\n",
		res.Unresolved, res.UnresolvedWait.Round(time.Millisecond))
}

// E2EWarnings merges the two clients' warnings about the shared file,
// leaving out each client's warning about the other's properties, which
// belong there.
func E2EWarnings(producer, consumer []kafkaconf.Warning) []kafkaconf.Warning {
	keys := func(ds []kafkaconf.Default) map[string]bool {
		m := map[string]bool{}
		for _, d := range ds {
			m[d.Key] = true
		}
		return m
	}
	consumerKeys, producerKeys := keys(kafkaconf.ConsumerDefaults()), keys(kafkaconf.ProducerDefaults())
	seen := map[kafkaconf.Warning]bool{}
	var out []kafkaconf.Warning
	add := func(ws []kafkaconf.Warning, otherKeys map[string]bool) {
		for _, w := range ws {
			if otherKeys[w.Key] || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	add(producer, consumerKeys)
	add(consumer, producerKeys)
	return out
}
