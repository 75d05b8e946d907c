package compat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/summary"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/kbench/kbench/internal/workload/share"
)

// The share-consumer-perf-test drop-in run: members of a share group
// accepting every record (the Apache tool's implicit acknowledgement),
// run through the runner, its lines printed in the tool's format. Like
// the Apache tool it sets no share.auto.offset.reset: a new group reads
// only records written after it joined.

// RunShareConsumer runs the share-consumer-perf-test workload and prints
// its results, writing the JSON on every path.
func RunShareConsumer(ctx context.Context, env Env, sa *ShareConsumerArgs, cc *kafkaconf.Consumer, started time.Time) error {
	opts, err := cc.ShareOpts()
	if err != nil {
		return FailedJSON(env, sa.JSONPath, result.KindSharePerf, started, err)
	}
	spec := consume.ConsumerSpec{
		Topics:      []string{sa.Topic},
		Group:       sa.Group,
		Clients:     sa.Threads,
		Records:     sa.NumRecords,
		IdleTimeout: max(sa.Timeout, time.Millisecond),
		ClientOpts: engine.PerClient(opts, func(i int) []kgo.Opt {
			return []kgo.Opt{kgo.ClientID(ShareClientID(cc.ClientID, i+1))}
		}),
		MaxPollRecords: cc.MaxPollRecords,
		Latency:        true,
		Lag:            true,
		Interval:       sa.ReportingInterval,
		OnError:        firstErrors(env.Stderr, "share fetch error"),
	}
	members := share.Spec{OnStall: stallPrinter(env.Stderr)}
	if sa.ShowDetailedStats {
		members.OnPoll = shareProgress(env, sa)
	}
	// The Apache tool's clock starts before its consumers subscribe.
	startMs := time.Now().UnixMilli()
	if !sa.HideHeader {
		ShareConsumerHeader(env.Stdout)
	}
	out, runErr := env.Run.Or()(ctx, runner.Scenario{
		Name:      ShareConsumerTool,
		Admin:     opts,
		Workloads: []runner.Workload{{Name: "share-consumers", Spec: workload.ShareConsume{Spec: spec, Share: members, ShortOK: true}}},
		OnStart:   func([]kadmin.TopicInfo) {},
	})
	endMs := time.Now().UnixMilli()
	if out == nil || out.Workloads[0].Read == nil {
		if sa.JSONPath != "" {
			doc := shareConfigDoc(env, sa, cc, nil, started)
			if out != nil {
				doc.BrokerVersions = out.BrokerVersions
			}
			doc.Finish(asRecorded(ctx, runErr))
			runErr = errors.Join(runErr, result.Write(sa.JSONPath, doc))
		}
		return runErr
	}
	res := out.Workloads[0].Read
	if sa.ShowConsumerStats {
		for i := range res.PerClient {
			ShareConsumerStats(env.Stdout, sa.DateFormat, i+1, ShareClientID(cc.ClientID, i+1), startMs, endMs, res.PerClientBytes[i], res.PerClient[i])
		}
	}
	if res.Records < sa.NumRecords {
		ConsumerTimeoutWarning(env.Stdout, sa.Timeout.Milliseconds())
		if res.Reason == consume.StopIdle {
			fmt.Fprintf(env.Stderr, "kbench: read %d of %d records; no record arrived for %s. A new share group reads only records written after it joined: set the group's share.auto.offset.reset=earliest (kafka-configs --alter --entity-type groups) to read older ones\n",
				res.Records, sa.NumRecords, sa.Timeout)
		}
	}
	ShareConsumerStats(env.Stdout, sa.DateFormat, 0, "", startMs, endMs, res.Bytes, res.Records)
	if sa.PrintMetrics {
		fmt.Fprintln(env.Stderr, "kbench: --print-metrics: "+ShareMetricsNote)
	}
	if sa.JSONPath != "" {
		cons, e2e, err := summary.Consumer(res, out.CPU)
		if err == nil && out.Workloads[0].Share != nil {
			cons.Share, err = summary.Share(out.Workloads[0].Share)
		}
		if err == nil {
			asPrinted(cons, startMs, endMs)
			doc := shareConfigDoc(env, sa, cc, res, started)
			doc.Consumer, doc.EndToEnd = cons, e2e
			doc.BrokerVersions = out.BrokerVersions
			for name, parts := range res.Topics {
				doc.Topic = &result.Topic{Name: name, Partitions: parts}
			}
			doc.Finish(asRecorded(ctx, runErr))
			err = result.Write(sa.JSONPath, doc)
		}
		runErr = errors.Join(runErr, err)
	}
	return runErr
}

// shareProgress prints each consumer's progress lines as the Apache tool
// does: from the consumer's own thread, once its reporting interval has
// passed, at a poll that returned records.
func shareProgress(env Env, sa *ShareConsumerArgs) func(i int, records, bytes int64, at time.Time) {
	type last struct {
		ms             int64
		records, bytes int64
	}
	var mu sync.Mutex
	start := time.Now().UnixMilli()
	lasts := make([]last, sa.Threads)
	for i := range lasts {
		lasts[i].ms = start
	}
	interval := sa.ReportingInterval.Milliseconds()
	return func(i int, records, bytes int64, at time.Time) {
		now := at.UnixMilli()
		mu.Lock()
		defer mu.Unlock()
		l := &lasts[i]
		if now-l.ms < interval {
			return
		}
		ShareConsumerProgressLine(env.Stdout, sa.DateFormat, ShareConsumerProgress{
			Consumer: i + 1, StartMs: l.ms, EndMs: now,
			Bytes: bytes, LastBytes: l.bytes, Records: records, LastRecords: l.records,
		})
		*l = last{ms: now, records: records, bytes: bytes}
	}
}

// shareConfigDoc starts the result document with the run's settings.
func shareConfigDoc(env Env, sa *ShareConsumerArgs, cc *kafkaconf.Consumer, res *consume.ConsumerResult, started time.Time) *result.Document {
	cfg := cc.ShareSettings()
	cfg["kbench.threads"] = strconv.Itoa(sa.Threads)
	cfg["kbench.timeout.ms"] = strconv.FormatInt(sa.Timeout.Milliseconds(), 10)
	cfg["kbench.num.records"] = strconv.FormatInt(sa.NumRecords, 10)
	cfg["kbench.share.group"] = sa.Group
	if res != nil {
		cfg["kbench.stop.reason"] = string(res.Reason)
	}
	return result.New(result.KindSharePerf, env.Version, started, cfg)
}

// asPrinted makes the JSON's whole-run figures the printed line's: the
// Apache tool's clock runs from before its consumers subscribe until they
// closed, so fetch_ms is the line's fetch.time.ms, duration_seconds the
// same time, and lifetime_records_per_sec (records over it) the line's
// nMsg.sec. records_per_sec and mib_per_sec stay over reading_seconds,
// first record to last. The JSON said 22,438 ms from the consumers' own
// start to their stop where the line said 23,162.
func asPrinted(c *result.Consumer, startMs, endMs int64) {
	elapsed := time.Duration(endMs-startMs) * time.Millisecond
	c.FetchMs = elapsed.Milliseconds()
	c.DurationSeconds = elapsed.Seconds()
	c.LifetimeRecordsPerSec = measure.PerSecond(c.Records, elapsed)
}
