package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
)

func newConsumerPerfCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "consumer-perf-test [options]",
		Short: "Drop-in kafka-consumer-perf-test: same flags, same output, real parallel consumers",
		Long: "Accepts the options of every Apache Kafka kafka-consumer-perf-test release since 2.x\n" +
			"and prints the same header and CSV lines. Run with --help for the options.",
		DisableFlagParsing: true, // the Apache tools' grammar, parsed by internal/compat
		RunE: func(c *cobra.Command, args []string) error {
			return runConsumerPerf(c.Context(), args, st)
		},
	}
}

// errConsumerTimeout marks a run that ended because no record arrived
// within --timeout before --num-records were consumed. The Apache tool
// exits 0 then; kbench exits 1 so that scripts notice the short run.
var errConsumerTimeout = errors.New("timeout")

func runConsumerPerf(ctx context.Context, args []string, st *state) error {
	ca, err := compat.ParseConsumerArgs(args, rand.IntN)
	if err != nil {
		return err
	}
	if err := checkJSONPath(ca.JSONPath); err != nil {
		return err
	}
	switch {
	case ca.Help:
		compat.Usage(st.stdout, compat.ConsumerUsage, compat.ConsumerOptions)
		return nil
	case ca.Version:
		fmt.Fprintf(st.stdout, "kbench %s\n", version)
		return nil
	}
	for _, w := range ca.Warnings {
		fmt.Fprintln(st.stdout, w) // the Apache tool prints these on stdout
	}
	for _, n := range ca.Notes {
		fmt.Fprintf(st.stderr, "kbench: note: %s\n", n)
	}
	started := time.Now()
	props, err := consumerProps(ca, st.stderr)
	if err != nil {
		return failedJSON(ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	cc, warnings, err := kafkaconf.ParseConsumer(props)
	for _, w := range warnings {
		fmt.Fprintf(st.stderr, "kbench: warning: %s\n", w)
	}
	if err != nil {
		return failedJSON(ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	if len(cc.BootstrapServers) == 0 {
		return failedJSON(ca.JSONPath, result.KindConsumerPerf, started,
			userr.Errorf("%s: no bootstrap servers: pass --bootstrap-server HOST:PORT (or bootstrap.servers=HOST:PORT in --command-property or --command-config)", compat.ConsumerTool))
	}
	opts, err := cc.Opts()
	if err != nil {
		return failedJSON(ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	return consume(ctx, st, ca, cc, opts, started)
}

// failedJSON writes, when --json was given, the result document of a run
// that failed before it measured anything, so that every exit path leaves
// one; it returns err (with the write's failure, if any).
func failedJSON(path, kind string, started time.Time, err error) error {
	if path == "" {
		return err
	}
	doc := result.New(kind, version, started, map[string]string{})
	doc.Finish(err)
	return errors.Join(err, result.Write(path, doc))
}

// consume runs the workload and prints its results, writing every result
// measured even when the run fails part way, and the JSON on every path.
func consume(ctx context.Context, st *state, ca *compat.ConsumerArgs, cc *kafkaconf.Consumer, opts []kgo.Opt, started time.Time) error {
	var metrics []*workload.ConsumerMetrics
	spec := workload.ConsumerSpec{
		Group:          ca.Group,
		Latest:         ca.FromLatest,
		Clients:        ca.Threads,
		Records:        ca.NumRecords,
		Duration:       ca.Duration,
		IdleTimeout:    max(ca.Timeout, time.Millisecond), // --timeout 0: stop at the first empty poll, as Java
		ClientOpts:     func(int) []kgo.Opt { return opts },
		MaxPollRecords: cc.MaxPollRecords,
		Latency:        true,
		Lag:            true,
		Interval:       ca.ReportingInterval,
		OnError:        firstErrors(st.stderr, "fetch error"),
	}
	if ca.Topic != "" {
		spec.Topics = []string{ca.Topic}
	} else {
		spec.Regex = ca.Include
	}
	if ca.ShowDetailedStats {
		spec.OnInterval = func(iv measure.ConsumerInterval) {
			if !iv.Final { // the Apache tool prints a line only once an interval has passed
				printConsumerProgress(st.stdout, ca.DateFormat, iv)
			}
		}
	}
	if ca.PrintMetrics {
		clientID := cc.ClientID
		metrics = make([]*workload.ConsumerMetrics, ca.Threads)
		spec.Hooks = func(i int) []kgo.Hook {
			metrics[i] = workload.NewConsumerMetrics(clientID, version)
			return []kgo.Hook{metrics[i]}
		}
	}
	out, runErr := runner.Run(ctx, runner.Scenario{
		Name:      compat.ConsumerTool,
		Admin:     opts,
		Workloads: []runner.Workload{{Name: "consumers", Spec: workload.Consume{Spec: spec}}},
		OnStart: func([]kadmin.TopicInfo) {
			// Only once the consumers run: a missing topic or broker fails
			// before the header, as nothing ran.
			if !ca.HideHeader {
				compat.ConsumerHeader(st.stdout, ca.ShowDetailedStats)
			}
		},
	})
	if out == nil || out.Workloads[0].Consumer == nil {
		// Nothing measured (the cluster did not answer, a topic is
		// missing): the JSON says why, with the settings.
		if ca.JSONPath != "" {
			doc := consumerConfigDoc(ca, cc, nil, started)
			if out != nil {
				doc.BrokerVersions = out.BrokerVersions
			}
			doc.Finish(runErr)
			runErr = errors.Join(runErr, result.Write(ca.JSONPath, doc))
		}
		return runErr
	}
	res, cpu := out.Workloads[0].Consumer, out.CPU
	short := shortRun(ca, res)
	if short {
		compat.ConsumerTimeoutWarning(st.stdout, ca.Timeout.Milliseconds())
	}
	if !ca.ShowDetailedStats {
		compat.ConsumerSummary(st.stdout, ca.DateFormat, compat.ConsumerTotals{
			StartMs: res.Start.UnixMilli(), EndMs: res.End.UnixMilli(),
			Bytes: res.Bytes, Records: res.Records, RebalanceMs: res.Rebalance.Milliseconds(),
		})
	}
	printConsumerMetrics(st.stdout, metrics)
	if short {
		runErr = errors.Join(runErr, fmt.Errorf("%w: consumed %d of %d records; no record arrived for %s (--timeout %d)",
			errConsumerTimeout, res.Records, ca.NumRecords, ca.Timeout, ca.Timeout.Milliseconds()))
	}
	if res.Rebalances > 0 {
		fmt.Fprintf(st.stderr, "kbench: the group rebalanced %d time(s) during the run\n", res.Rebalances)
	}
	if ca.JSONPath != "" {
		doc, err := consumerDocument(ca, cc, res, cpu, started, runErr)
		if err == nil {
			doc.BrokerVersions = out.BrokerVersions
			err = result.Write(ca.JSONPath, doc)
		}
		runErr = errors.Join(runErr, err)
	}
	return runErr
}

// shortRun reports whether the run ended on --timeout before its records
// (or its --duration) were done.
func shortRun(ca *compat.ConsumerArgs, res *workload.ConsumerResult) bool {
	if res.Reason != workload.StopIdle {
		return false
	}
	return ca.NumRecords == 0 || res.Records < ca.NumRecords
}

func printConsumerProgress(w io.Writer, df *compat.DateFormat, iv measure.ConsumerInterval) {
	compat.ConsumerProgressLine(w, df, compat.ConsumerProgress{
		StartMs: iv.Start.UnixMilli(), EndMs: iv.End.UnixMilli(),
		Bytes: iv.TotalBytes, LastBytes: iv.TotalBytes - iv.Bytes,
		Records: iv.TotalRecords, LastRecords: iv.TotalRecords - iv.Records,
		RebalanceMsInInterval: iv.Rebalance.Milliseconds(),
	})
}

func printConsumerMetrics(w io.Writer, metrics []*workload.ConsumerMetrics) {
	if len(metrics) == 0 {
		return
	}
	now := time.Now()
	var rows []measure.Metric
	for i, m := range metrics {
		if m == nil {
			continue
		}
		ms := m.Metrics(now)
		if len(metrics) > 1 {
			// Clients share the client.id, so a thread tag tells their rows apart.
			for j := range ms {
				ms[j].Tags = append(ms[j].Tags, measure.Tag{Key: "thread", Value: strconv.Itoa(i)})
			}
		}
		rows = append(rows, ms...)
	}
	compat.PrintMetrics(w, rows)
}

// consumerProps gathers properties in the Apache tool's order: the
// properties file, then --command-property, then what its options set,
// which override both (as the tool's props() does).
func consumerProps(ca *compat.ConsumerArgs, stderr io.Writer) ([]kafkaconf.Prop, error) {
	var props []kafkaconf.Prop
	for _, f := range ca.PropFiles {
		fp, err := kafkaconf.ReadFile(f)
		if err != nil {
			return nil, userr.New(err)
		}
		props = append(props, fp...)
	}
	for _, pp := range ca.PropPairs {
		kv, err := kafkaconf.ParsePairs([]string{pp.Item}, pp.Option)
		if err != nil {
			return nil, err
		}
		props = append(props, kv...)
	}
	tool := "default of " + compat.ConsumerTool
	set := func(key, value, source string) {
		props = append(props, kafkaconf.Prop{Key: key, Value: value, Source: source})
	}
	if ca.BootstrapServer != "" {
		set("bootstrap.servers", ca.BootstrapServer, "--bootstrap-server")
	}
	if ca.Group != "" {
		source := "--group"
		if !ca.GroupGiven {
			source = tool + " (--group)"
		}
		if p, ok := lastProp(props, "group.id"); ok && p.Value != ca.Group {
			fmt.Fprintf(stderr, "kbench: note: group.id=%s (%s) is replaced by %s, as the Apache tool does; use --group to choose the group\n", p.Value, p.Source, ca.Group)
		}
		set("group.id", ca.Group, source)
	}
	if ca.SocketBufferSize > 0 {
		set("receive.buffer.bytes", strconv.Itoa(ca.SocketBufferSize), "--socket-buffer-size")
	}
	set("max.partition.fetch.bytes", strconv.Itoa(ca.FetchSize), "--fetch-size")
	reset, resetSource := "earliest", tool+" (no --from-latest)"
	if ca.FromLatest {
		reset, resetSource = "latest", "--from-latest"
	}
	if err := checkOverridden(props, "auto.offset.reset", reset, "--from-latest chooses latest", stderr); err != nil {
		return nil, err
	}
	set("auto.offset.reset", reset, resetSource)
	set("check.crcs", "false", tool)
	if _, ok := lastProp(props, "client.id"); !ok {
		set("client.id", "perf-consumer-client", tool)
	}
	return props, nil
}

// checkOverridden checks the user's value of a property the tool sets
// itself to value (as the Apache tool does), so that a mistyped value is
// reported rather than silently replaced, and notes a valid one that is
// replaced. how says how to get another value.
func checkOverridden(props []kafkaconf.Prop, key, value, how string, stderr io.Writer) error {
	p, ok := lastProp(props, key)
	if !ok {
		return nil
	}
	if err := kafkaconf.CheckConsumerValue(p); err != nil {
		return err
	}
	if p.Value != value {
		fmt.Fprintf(stderr, "kbench: note: %s=%s (%s) is replaced by %s, as the Apache tool does; %s\n", key, p.Value, p.Source, value, how)
	}
	return nil
}

func lastProp(props []kafkaconf.Prop, key string) (kafkaconf.Prop, bool) {
	for i := len(props) - 1; i >= 0; i-- {
		if props[i].Key == key {
			return props[i], true
		}
	}
	return kafkaconf.Prop{}, false
}

func consumerDocument(ca *compat.ConsumerArgs, cc *kafkaconf.Consumer, res *workload.ConsumerResult,
	cpu time.Duration, started time.Time, runErr error) (*result.Document, error) {
	cons, e2e, err := runner.ConsumerSummary(res, cpu)
	if err != nil {
		return nil, err
	}
	doc := consumerConfigDoc(ca, cc, res, started)
	doc.Consumer, doc.EndToEnd = cons, e2e
	if len(res.Topics) == 1 {
		for name, parts := range res.Topics {
			doc.Topic = &result.Topic{Name: name, Partitions: parts}
		}
	}
	doc.Finish(runErr)
	return doc, nil
}

// consumerConfigDoc starts the result document with the run's settings
// (res nil: the run measured nothing).
func consumerConfigDoc(ca *compat.ConsumerArgs, cc *kafkaconf.Consumer, res *workload.ConsumerResult, started time.Time) *result.Document {
	cfg := cc.Settings()
	tool := map[string]string{
		"threads":    strconv.Itoa(ca.Threads),
		"timeout.ms": strconv.FormatInt(ca.Timeout.Milliseconds(), 10),
	}
	if res != nil {
		tool["stop.reason"] = string(res.Reason)
	}
	if ca.NumRecords > 0 {
		tool["num.records"] = strconv.FormatInt(ca.NumRecords, 10)
	}
	if ca.Duration > 0 {
		tool["duration"] = ca.Duration.String()
	}
	if ca.Include != nil {
		tool["include"] = ca.Include.String()
	}
	if ca.Assign {
		tool["assign"] = "true"
	}
	for k, v := range tool {
		cfg["kbench."+k] = v
	}
	return result.New(result.KindConsumerPerf, version, started, cfg)
}
