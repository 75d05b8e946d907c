package compat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// The end-to-end-latency drop-in run: Apache's EndToEndLatency probe, one
// record at a time, through the runner, printed in the tool's format.

// e2eTopicPartitions and e2eTopicReplication are what the Apache tool
// creates a missing topic with; e2ePollTimeout bounds each record's trip,
// its poll timeout.
const (
	e2eTopicPartitions  = 1
	e2eTopicReplication = 1
	e2ePollTimeout      = 60 * time.Second
)

// RunEndToEnd runs the end-to-end-latency probe through the runner and
// prints its lines as the Apache tool does, writing every result measured
// even when the run fails part way.
func RunEndToEnd(ctx context.Context, env Env, ea *E2EArgs, pc *kafkaconf.Producer, cc *kafkaconf.Consumer, started time.Time) error {
	popts, err := pc.Opts(ea.RecordSize + max(ea.KeySize, 0) + ea.NumHeaders*(ea.HeaderKeySize+max(ea.HeaderSize, 0)))
	if err != nil {
		return FailedJSON(env, ea.JSONPath, result.KindEndToEnd, started, err)
	}
	copts, err := cc.Opts()
	if err != nil {
		return FailedJSON(env, ea.JSONPath, result.KindEndToEnd, started, err)
	}
	spec := workload.E2ESpec{
		Topic: ea.Topic, Records: ea.NumRecords,
		ValueSize: ea.RecordSize, KeySize: ea.KeySize,
		Headers: ea.NumHeaders, HeaderKeySize: ea.HeaderKeySize, HeaderValueSize: ea.HeaderSize,
		ProducerOpts: popts, ConsumerOpts: copts, PollTimeout: e2ePollTimeout,
		OnRecord: func(i int, d time.Duration) {
			if i%1000 == 0 {
				E2EProgressLine(env.Stdout, i, d)
			}
		},
		OnStall: func(i int, waited time.Duration, acked bool) {
			what := "no acknowledgement"
			if acked {
				what = "acknowledged, not consumed"
			}
			fmt.Fprintf(env.Stderr, "kbench: record %d: %s after %s (each record is given %s)\n", i, what, waited.Round(time.Second), e2ePollTimeout)
		},
	}
	out, runErr := env.Run.Or()(ctx, runner.Scenario{
		Name:  E2ETool,
		Admin: copts,
		Topics: []runner.Topic{{Existing: kadmin.Reuse, TopicSpec: kadmin.TopicSpec{
			Name: ea.Topic, Partitions: e2eTopicPartitions, ReplicationFactor: e2eTopicReplication,
		}}},
		Workloads: []runner.Workload{{Name: "probe", Spec: workload.Probe{Spec: spec}}},
		OnStart: func(topics []kadmin.TopicInfo) {
			if topics[0].Created {
				E2ETopicCreated(env.Stdout, ea.Topic, e2eTopicPartitions, e2eTopicReplication)
			}
		},
	})
	if out == nil || out.Workloads[0].Probe == nil {
		// Nothing measured (the cluster did not answer): the JSON says why,
		// with the settings.
		if ea.JSONPath != "" {
			doc := result.New(result.KindEndToEnd, env.Version, started, e2eConfig(ea, pc, cc))
			if out != nil {
				doc.BrokerVersions = out.BrokerVersions
			}
			doc.Finish(asRecorded(ctx, runErr))
			runErr = errors.Join(runErr, result.Write(ea.JSONPath, doc))
		}
		return runErr
	}
	res, topic := out.Workloads[0].Probe, out.Topics[0]
	if runErr == nil {
		// Like the Apache tool, the summary is printed only for a complete
		// run; a failed one leaves its partial numbers in --json.
		E2ESummary(env.Stdout, res.Count, res.TotalNanos,
			E2EPercentile(res.MsCounts, 0.5), E2EPercentile(res.MsCounts, 0.99), E2EPercentile(res.MsCounts, 0.999))
	} else {
		runErr = fmt.Errorf("%w (%d of %d records measured)", runErr, res.Count, ea.NumRecords)
	}
	if ea.JSONPath != "" {
		doc, err := e2eDocument(env, ea, pc, cc, topic, res, started, asRecorded(ctx, runErr))
		if err == nil {
			doc.BrokerVersions = out.BrokerVersions
			err = result.Write(ea.JSONPath, doc)
		}
		runErr = errors.Join(runErr, err)
	}
	return runErr
}

func e2eDocument(env Env, ea *E2EArgs, pc *kafkaconf.Producer, cc *kafkaconf.Consumer, topic kadmin.TopicInfo,
	res *workload.E2EResult, started time.Time, runErr error) (*result.Document, error) {
	lat, err := result.LatencyOf(res.Latency)
	if err != nil {
		return nil, err
	}
	doc := result.New(result.KindEndToEnd, env.Version, started, e2eConfig(ea, pc, cc))
	doc.Topic = resultTopic(topic)
	doc.EndToEnd = &lat
	doc.Finish(runErr)
	return doc, nil
}

// e2eConfig is the run's settings as the result document records them.
func e2eConfig(ea *E2EArgs, pc *kafkaconf.Producer, cc *kafkaconf.Consumer) map[string]string {
	cfg := map[string]string{}
	for k, v := range pc.Settings() {
		cfg["producer."+k] = v
	}
	for k, v := range cc.Settings() {
		cfg["consumer."+k] = v
	}
	for k, v := range map[string]string{
		"num.records":            strconv.Itoa(ea.NumRecords),
		"record.size":            strconv.Itoa(ea.RecordSize),
		"record.key.size":        strconv.Itoa(ea.KeySize),
		"num.headers":            strconv.Itoa(ea.NumHeaders),
		"record.header.key.size": strconv.Itoa(ea.HeaderKeySize),
		"record.header.size":     strconv.Itoa(ea.HeaderSize),
	} {
		cfg["kbench."+k] = v
	}
	return cfg
}
