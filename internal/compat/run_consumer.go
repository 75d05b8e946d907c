package compat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/summary"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The consumer-perf-test drop-in run: the consumer workload built from
// the Apache tool's arguments, run through the runner, and its lines
// printed in the tool's format.

// errConsumerTimeout marks a run that ended because no record arrived
// within --timeout before --num-records were consumed, with --strict. The
// Apache tool exits 0 then, and so does kbench without --strict (scripts
// that check $? broke when it exited 1), saying the shortfall on stderr.
var errConsumerTimeout = errors.New("timeout")

// FailedJSON writes, when --json was given, the result document of a run
// that failed before it measured anything, so that every exit path leaves
// one; it returns err (with the write's failure, if any).
func FailedJSON(env Env, path, kind string, started time.Time, err error) error {
	if path == "" {
		return err
	}
	doc := result.New(kind, env.Version, started, map[string]string{})
	doc.Finish(err)
	return errors.Join(err, result.Write(path, doc))
}

// RunConsumer runs the consumer-perf-test workload and prints its results, writing every result
// measured even when the run fails part way, and the JSON on every path.
func RunConsumer(ctx context.Context, env Env, ca *ConsumerArgs, cc *kafkaconf.Consumer, started time.Time) error {
	opts, err := cc.Opts()
	if err != nil {
		return FailedJSON(env, ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	var metrics []*engine.ConsumerMetrics
	spec := consume.ConsumerSpec{
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
		OnError:        firstErrors(env.Stderr, "fetch error"),
	}
	if ca.Topic != "" {
		spec.Topics = []string{ca.Topic}
	} else {
		spec.Regex = ca.Include
	}
	if ca.ShowDetailedStats {
		spec.OnInterval = func(iv measure.ConsumerInterval) {
			if !iv.Final { // the Apache tool prints a line only once an interval has passed
				printConsumerProgress(env.Stdout, ca.DateFormat, iv)
			}
		}
	}
	if ca.PrintMetrics {
		clientID := cc.ClientID
		metrics = make([]*engine.ConsumerMetrics, ca.Threads)
		spec.Hooks = func(i int) []kgo.Hook {
			metrics[i] = engine.NewConsumerMetrics(clientID, env.Version)
			return []kgo.Hook{metrics[i]}
		}
	}
	prom, err := serveMetrics(ctx, env, ca.Metrics, ConsumerTool, observe.WorkloadInfo{Name: "consumers", Type: "consume",
		Reads: true, Records: ca.NumRecords, Duration: ca.Duration})
	if err != nil {
		return FailedJSON(env, ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	var final result.Workload // what the endpoint is told at the end
	defer func() { prom.ended(final) }()
	spec.OnInterval = prom.consumerSeries("consumers", spec.OnInterval)
	spec.OnLag = prom.consumerLag("consumers")
	out, runErr := env.Run.Or()(ctx, runner.Scenario{
		Name:      ConsumerTool,
		Admin:     opts,
		Workloads: []runner.Workload{{Name: "consumers", Spec: workload.Consume{Spec: spec, ShortOK: !ca.Strict}}},
		OnStart: func([]kadmin.TopicInfo) {
			// Only once the consumers run: a missing topic or broker fails
			// before the header, as nothing ran.
			if !ca.HideHeader {
				ConsumerHeader(env.Stdout, ca.ShowDetailedStats)
			}
		},
	})
	if out == nil || out.Workloads[0].Read == nil {
		// Nothing measured (the cluster did not answer, a topic is
		// missing): the JSON says why, with the settings.
		if ca.JSONPath != "" {
			doc := consumerConfigDoc(env, ca, cc, nil, started)
			if out != nil {
				doc.BrokerVersions = out.BrokerVersions
			}
			doc.Finish(asRecorded(ctx, runErr))
			runErr = errors.Join(runErr, result.Write(ca.JSONPath, doc))
		}
		return runErr
	}
	res, cpu := out.Workloads[0].Read, out.CPU
	if prom != nil {
		if cons, _, err := summary.Consumer(res, cpu); err == nil {
			final = result.Workload{Name: "consumers", Consumer: cons}
		}
	}
	short := shortRun(ca, res)
	if short {
		ConsumerTimeoutWarning(env.Stdout, ca.Timeout.Milliseconds())
	}
	if !ca.ShowDetailedStats {
		ConsumerSummary(env.Stdout, ca.DateFormat, ConsumerTotals{
			StartMs: res.Start.UnixMilli(), EndMs: res.End.UnixMilli(),
			Bytes: res.Bytes, Records: res.Records, RebalanceMs: res.Rebalance.Milliseconds(),
		})
	}
	printConsumerMetrics(env.Stdout, metrics)
	if short {
		if err := shortfall(ca, res.Records); ca.Strict {
			runErr = errors.Join(runErr, err)
		} else {
			fmt.Fprintf(env.Stderr, "kbench: %v; exit 0 as the Apache tool's (--strict exits 1)\n", err)
		}
	}
	if res.Rebalances > 0 {
		fmt.Fprintf(env.Stderr, "kbench: the group rebalanced %d time(s) during the run\n", res.Rebalances)
	}
	if ca.JSONPath != "" {
		doc, err := consumerDocument(env, ca, cc, res, cpu, started, asRecorded(ctx, runErr))
		if err == nil {
			doc.BrokerVersions = out.BrokerVersions
			err = result.Write(ca.JSONPath, doc)
		}
		runErr = errors.Join(runErr, err)
	}
	return runErr
}

// shortfall says what a run --timeout ended short consumed.
func shortfall(ca *ConsumerArgs, records int64) error {
	return fmt.Errorf("%w: consumed %d of %d records; no record arrived for %s (--timeout %d)",
		errConsumerTimeout, records, ca.NumRecords, ca.Timeout, ca.Timeout.Milliseconds())
}

// shortRun reports whether the run ended on --timeout before its records
// (or its --duration) were done.
func shortRun(ca *ConsumerArgs, res *consume.ConsumerResult) bool {
	if res.Reason != consume.StopIdle {
		return false
	}
	return ca.NumRecords == 0 || res.Records < ca.NumRecords
}

func printConsumerProgress(w io.Writer, df *DateFormat, iv measure.ConsumerInterval) {
	ConsumerProgressLine(w, df, ConsumerProgress{
		StartMs: iv.Start.UnixMilli(), EndMs: iv.End.UnixMilli(),
		Bytes: iv.TotalBytes, LastBytes: iv.TotalBytes - iv.Bytes,
		Records: iv.TotalRecords, LastRecords: iv.TotalRecords - iv.Records,
		RebalanceMsInInterval: iv.Rebalance.Milliseconds(),
	})
}

func printConsumerMetrics(w io.Writer, metrics []*engine.ConsumerMetrics) {
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
	PrintMetrics(w, rows)
}

func consumerDocument(env Env, ca *ConsumerArgs, cc *kafkaconf.Consumer, res *consume.ConsumerResult,
	cpu time.Duration, started time.Time, runErr error) (*result.Document, error) {
	cons, e2e, err := summary.Consumer(res, cpu)
	if err != nil {
		return nil, err
	}
	doc := consumerConfigDoc(env, ca, cc, res, started)
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
func consumerConfigDoc(env Env, ca *ConsumerArgs, cc *kafkaconf.Consumer, res *consume.ConsumerResult, started time.Time) *result.Document {
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
	return result.New(result.KindConsumerPerf, env.Version, started, cfg)
}
