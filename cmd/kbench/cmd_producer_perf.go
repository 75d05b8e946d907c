package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
)

func newProducerPerfCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "producer-perf-test [options]",
		Short: "Drop-in kafka-producer-perf-test: same flags, same output, honest latency",
		Long: "Accepts the options of every Apache Kafka kafka-producer-perf-test release since 2.x\n" +
			"and prints the same progress and summary lines. Run with --help for the options.",
		DisableFlagParsing: true, // the Apache tools' grammar, parsed by internal/compat
		RunE: func(c *cobra.Command, args []string) error {
			return runProducerPerf(c.Context(), args, st)
		},
	}
}

func runProducerPerf(ctx context.Context, args []string, st *state) error {
	pa, err := compat.ParseProducerArgs(args)
	if err != nil {
		return err
	}
	if err := checkJSONPath(pa.JSONPath); err != nil {
		return err
	}
	if pa.Help {
		compat.Usage(st.stdout, compat.ProducerUsage, compat.ProducerOptions)
		return nil
	}
	props, err := producerProps(pa)
	if err != nil {
		return err
	}
	props, profile, err := kafkaconf.WithProfile(pa.Profile, "--profile", props)
	if err != nil {
		return userr.New(err)
	}
	if profile != "" {
		fmt.Fprintf(st.stderr, "kbench: %s\n", profile)
	}
	pc, warnings, err := kafkaconf.ParseProducer(props)
	for _, w := range warnings {
		fmt.Fprintf(st.stderr, "kbench: warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	var keys *payload.Keys
	keySize := 0
	if pa.RecordKeyRange > 0 {
		if keys, err = payload.NewKeys(pa.RecordKeyRange, payload.NewSeed()); err != nil {
			return userr.Errorf("--record-key-range: %v", err)
		}
		keySize = keys.MaxSize()
	}
	if pa.RecordSize > 0 { // check --record-size against max.request.size before allocating its values
		if _, err := pc.Opts(pa.RecordSize + keySize); err != nil {
			return err
		}
	}
	values, err := producerValues(pa, st.stdout)
	if err != nil {
		return err
	}
	for _, w := range pa.DeprecationWarnings() {
		fmt.Fprintln(st.stdout, w) // where and how Apache 4.3 prints them
	}
	if !pa.Local && len(pc.BootstrapServers) == 0 {
		return userr.Errorf("%s: no bootstrap servers: pass --bootstrap-server HOST:PORT, bootstrap.servers=HOST:PORT in --command-property or --producer-props, or --local to run against a local Kafka that kbench starts", compat.ProducerTool)
	}
	maxRecord := values.MaxSize() + keySize
	if _, err := pc.Opts(maxRecord); err != nil { // validate before starting anything
		return err
	}
	if pa.Local {
		if pa.LocalBrokers > cluster.MaxBrokers {
			return userr.Errorf("--local-brokers %d: at most %d brokers run locally", pa.LocalBrokers, cluster.MaxBrokers)
		}
		stop, bootstrap, err := startLocalCluster(ctx, st, pa.LocalBrokers, pa.LocalVersion)
		if err != nil {
			return err
		}
		defer stop()
		pc.BootstrapServers = []string{bootstrap}
	}
	opts, err := pc.Opts(maxRecord)
	if err != nil {
		return err
	}
	var e2e *workload.ConsumerSpec
	if pa.EndToEnd {
		if e2e, err = e2eConsumerSpec(st, props, pc, pa); err != nil {
			return fmt.Errorf("--e2e: %w", err)
		}
	}
	// After --duration: workload.DefaultDrain; without an acknowledgement
	// in a run of --num-records: workload.DefaultStall.
	var drain time.Duration
	if hasProp(props, "delivery.timeout.ms") {
		drain = pc.DeliveryTimeout // the user asked to wait that long
	}
	return produce(ctx, st, pa, pc, opts, values, keys, e2e, drain)
}

// produce runs the workload through the runner (which prepares the topic)
// and reports it, writing every result measured even when the run fails
// part way.
func produce(ctx context.Context, st *state, pa *compat.ProducerArgs, pc *kafkaconf.Producer, opts []kgo.Opt,
	values payload.Source, keys *payload.Keys, e2e *workload.ConsumerSpec, drain time.Duration) error {
	if pa.WarmupRecords > 0 {
		fmt.Fprintf(st.stdout, "Warmup first %d records. Steady state results will print after the complete test summary.\n", pa.WarmupRecords)
	}
	var txEvery time.Duration
	if pc.TransactionalID != "" {
		txEvery = compat.DefaultTransactionDuration
		if pa.TransactionMs > 0 {
			txEvery = time.Duration(pa.TransactionMs) * time.Millisecond
		}
	}
	var metrics []*workload.ProducerMetrics
	if pa.PrintMetrics {
		for i := range pa.Producers {
			metrics = append(metrics, workload.NewProducerMetrics(clientID(pc.ClientID, i), version, pc.BufferMemory))
		}
	}
	steadyAnnounced := false
	spec := workload.ProducerSpec{
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
				fmt.Fprintln(st.stdout, "In steady state.")
			}
			compat.WindowLine(st.stdout, iv.Count, iv.Length, iv.Bytes, iv.AvgLatencyMicros()/1000, float64(iv.LatMaxUs)/1000)
		},
		OnError: firstErrors(st.stderr, "produce failed"),
		OnStall: stallPrinter(st.stderr),
		Drain:   drain,
		Stall:   drain,
		Abort:   st.abort,
	}
	w := runner.Workload{Name: "producers", Spec: workload.Produce{Spec: spec}}
	if e2e != nil {
		w.Spec = workload.EndToEnd{Send: spec, Read: *e2e}
	}
	started := time.Now()
	out, runErr := runner.Run(ctx, runner.Scenario{
		Name:  compat.ProducerTool,
		Admin: opts,
		Topics: []runner.Topic{{Existing: kadmin.Reuse, TopicSpec: kadmin.TopicSpec{
			Name: pa.Topic, Partitions: pa.Partitions, ReplicationFactor: pa.ReplicationFactor,
			PartitionsFlag: "--partitions", ReplicationFlag: "--replication-factor",
		}}},
		Workloads: []runner.Workload{w},
	})
	if out == nil || out.Workloads[0].Producer == nil {
		return runErr
	}
	res, cpu := out.Workloads[0].Producer, out.CPU
	printProducerTotals(st.stdout, res)
	printUnresolved(st.stderr, res)
	if len(metrics) > 0 {
		var table []measure.Metric
		now := time.Now()
		for _, m := range metrics {
			table = append(table, m.Metrics(now)...)
		}
		compat.PrintMetrics(st.stdout, table)
	}
	var e2eLat *result.Latency
	if e2e != nil {
		var err error
		e2eLat, err = printE2E(st.stdout, out.Workloads[0].EndToEnd, res.Acked)
		runErr = errors.Join(runErr, err)
	}
	summary, err := runner.ProducerSummary(res, pa.Throughput, cpu)
	if err != nil {
		return errors.Join(runErr, err)
	}
	runErr = errors.Join(runErr, failedRecordsError(res))
	if pa.JSONPath != "" {
		doc := producerDocument(pa, pc, out.Topics[0], summary, started, runErr)
		doc.BrokerVersions = out.BrokerVersions
		doc.EndToEnd = e2eLat
		if err := result.Write(pa.JSONPath, doc); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	return runErr
}

// producerClientOpts gives each client its options: its own client id,
// its metrics hooks, and what runner.ProducerClientOpts gives plans' clients
// too (its own transactional id, or permission to give up on in-flight
// records after the delivery timeout).
func producerClientOpts(opts []kgo.Opt, pc *kafkaconf.Producer, metrics []*workload.ProducerMetrics) func(int) []kgo.Opt {
	return func(i int) []kgo.Opt {
		out := append([]kgo.Opt(nil), opts...)
		out = append(out, kgo.ClientID(clientID(pc.ClientID, i)))
		if i < len(metrics) {
			out = append(out, metrics[i].Hooks())
		}
		return append(out, runner.ProducerClientOpts(pc, i)...)
	}
}

func printProducerTotals(w io.Writer, res *workload.ProducerResult) {
	line := func(acked, bytes int64, elapsed time.Duration, h *measure.Histogram, steady bool) {
		avg := math.NaN() // what the Apache tool prints when nothing was acknowledged
		if acked > 0 {
			avg = h.Mean() / 1000
		}
		compat.TotalLine(w, acked, steady, elapsed, bytes, avg, float64(h.Max())/1000, compat.Percentiles{
			P50: roundMs(h.Quantile(0.50)), P95: roundMs(h.Quantile(0.95)),
			P99: roundMs(h.Quantile(0.99)), P999: roundMs(h.Quantile(0.999)),
		})
	}
	line(res.Acked, res.Bytes, res.End.Sub(res.Start), res.Latency, false)
	if res.Steady != nil && !res.Steady.Start.IsZero() {
		line(res.Steady.Acked, res.Steady.Bytes, res.End.Sub(res.Steady.Start), res.Steady.Latency, true)
	}
}

// resultTopic is the topic as the result document records it.
func resultTopic(t kadmin.TopicInfo) *result.Topic {
	return &result.Topic{Name: t.Name, Partitions: t.Partitions, ReplicationFactor: t.ReplicationFactor}
}

// clientID names client i: the configured id for the first, with a suffix
// for the others so that their metrics and broker logs tell them apart.
func clientID(base string, i int) string {
	if i == 0 {
		return base
	}
	return base + "-" + strconv.Itoa(i)
}

// roundMs converts microseconds to whole milliseconds, rounding half up.
func roundMs(us int64) int64 { return (us + 500) / 1000 }

func failedRecordsError(res *workload.ProducerResult) error {
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

// producerProps gathers properties in the Apache tool's order of
// precedence: files, then k=v options, then the dedicated flags.
func producerProps(pa *compat.ProducerArgs) ([]kafkaconf.Prop, error) {
	var props []kafkaconf.Prop
	for _, f := range pa.PropFiles {
		fp, err := kafkaconf.ReadFile(f)
		if err != nil {
			return nil, userr.New(err)
		}
		props = append(props, fp...)
	}
	for _, pp := range pa.PropPairs {
		kv, err := kafkaconf.ParsePairs([]string{pp.Item}, pp.Option)
		if err != nil {
			return nil, err
		}
		props = append(props, kv...)
	}
	if pa.BootstrapServer != "" {
		props = append(props, kafkaconf.Prop{Key: "bootstrap.servers", Value: pa.BootstrapServer, Source: "--bootstrap-server"})
	}
	if !hasProp(props, "client.id") {
		props = append(props, kafkaconf.Prop{Key: "client.id", Value: "perf-producer-client", Source: "default of " + compat.ProducerTool})
	}
	txID := pa.TransactionalID
	if txID == "" && pa.TransactionMs > 0 && !hasProp(props, "transactional.id") {
		txID = "performance-producer-" + randomID()
	}
	if txID != "" {
		props = append(props, kafkaconf.Prop{Key: "transactional.id", Value: txID, Source: "--transactional-id"})
	}
	return props, nil
}

func hasProp(props []kafkaconf.Prop, key string) bool {
	for _, p := range props {
		if p.Key == key {
			return true
		}
	}
	return false
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// producerValues builds the record values, printing the payload file lines
// the current Apache tool prints (4.3; 2.x said "messages" for "records").
func producerValues(pa *compat.ProducerArgs, stdout io.Writer) (payload.Source, error) {
	switch {
	case pa.PayloadFile != "":
		abs, _ := filepath.Abs(pa.PayloadFile)
		fmt.Fprintf(stdout, "Reading payloads from: %s\n", abs)
		src, n, err := payload.File(pa.PayloadFile, pa.PayloadDelimiter, payload.NewSeed())
		if err != nil {
			return nil, userr.Errorf("--payload-file: %v", err)
		}
		fmt.Fprintf(stdout, "Number of records read: %d\n", n)
		return src, nil
	case pa.PayloadMonotonic:
		return payload.Monotonic(pa.NumRecords), nil
	default:
		src, err := payload.Random(pa.RecordSize, payload.NewSeed())
		if err != nil {
			return nil, userr.Errorf("--record-size: %v", err)
		}
		return src, nil
	}
}

func producerDocument(pa *compat.ProducerArgs, pc *kafkaconf.Producer, topic kadmin.TopicInfo,
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
	doc := result.New(result.KindProducerPerf, version, started, cfg)
	doc.Topic = resultTopic(topic)
	doc.Producer = p
	doc.Finish(runErr)
	return doc
}
