package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
)

func newEndToEndCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "end-to-end-latency [options | broker_list topic num_messages producer_acks message_size_bytes [properties_file]]",
		Short: "Drop-in kafka.tools.EndToEndLatency: one record at a time, send to consume",
		Long: "Accepts the positional arguments of Apache Kafka up to 4.1 and the named options of 4.2+\n" +
			"(KIP-1172), and prints the same lines. Run with --help for the options.",
		DisableFlagParsing: true, // the Apache tools' grammar, parsed by internal/compat
		RunE: func(c *cobra.Command, args []string) error {
			return runEndToEnd(c.Context(), args, st)
		},
	}
}

// e2eTopicPartitions and e2eTopicReplication are what the Apache tool
// creates a missing topic with; e2ePollTimeout bounds each record's trip,
// its poll timeout.
const (
	e2eTopicPartitions  = 1
	e2eTopicReplication = 1
	e2ePollTimeout      = 60 * time.Second
)

func runEndToEnd(ctx context.Context, args []string, st *state) error {
	ea, err := compat.ParseE2EArgs(args)
	if err != nil {
		return err
	}
	if err := checkJSONPath(ea.JSONPath); err != nil {
		return err
	}
	switch {
	case ea.Help:
		compat.Usage(st.stdout, compat.E2EUsage, compat.E2EOptions)
		return nil
	case ea.Version:
		fmt.Fprintf(st.stdout, "kbench %s\n", version)
		return nil
	}
	started := time.Now()
	pc, cc, err := e2eConfigs(ea, st.stderr)
	if err != nil {
		return failedJSON(ea.JSONPath, result.KindEndToEnd, started, err)
	}
	popts, err := pc.Opts(ea.RecordSize + max(ea.KeySize, 0) + ea.NumHeaders*(ea.HeaderKeySize+max(ea.HeaderSize, 0)))
	if err != nil {
		return failedJSON(ea.JSONPath, result.KindEndToEnd, started, err)
	}
	copts, err := cc.Opts()
	if err != nil {
		return failedJSON(ea.JSONPath, result.KindEndToEnd, started, err)
	}
	spec := workload.E2ESpec{
		Topic: ea.Topic, Records: ea.NumRecords,
		ValueSize: ea.RecordSize, KeySize: ea.KeySize,
		Headers: ea.NumHeaders, HeaderKeySize: ea.HeaderKeySize, HeaderValueSize: ea.HeaderSize,
		ProducerOpts: popts, ConsumerOpts: copts, PollTimeout: e2ePollTimeout,
		OnRecord: func(i int, d time.Duration) {
			if i%1000 == 0 {
				compat.E2EProgressLine(st.stdout, i, d)
			}
		},
		OnStall: func(i int, waited time.Duration, acked bool) {
			what := "no acknowledgement"
			if acked {
				what = "acknowledged, not consumed"
			}
			fmt.Fprintf(st.stderr, "kbench: record %d: %s after %s (each record is given %s)\n", i, what, waited.Round(time.Second), e2ePollTimeout)
		},
	}
	out, runErr := runner.Run(ctx, runner.Scenario{
		Name:  compat.E2ETool,
		Admin: copts,
		Topics: []runner.Topic{{Existing: kadmin.Reuse, TopicSpec: kadmin.TopicSpec{
			Name: ea.Topic, Partitions: e2eTopicPartitions, ReplicationFactor: e2eTopicReplication,
		}}},
		Workloads: []runner.Workload{{Name: "probe", Spec: workload.Probe{Spec: spec}}},
		OnStart: func(topics []kadmin.TopicInfo) {
			if topics[0].Created {
				compat.E2ETopicCreated(st.stdout, ea.Topic, e2eTopicPartitions, e2eTopicReplication)
			}
		},
	})
	if out == nil || out.Workloads[0].Probe == nil {
		// Nothing measured (the cluster did not answer): the JSON says why,
		// with the settings.
		if ea.JSONPath != "" {
			doc := result.New(result.KindEndToEnd, version, started, e2eConfig(ea, pc, cc))
			if out != nil {
				doc.BrokerVersions = out.BrokerVersions
			}
			doc.Finish(runErr)
			runErr = errors.Join(runErr, result.Write(ea.JSONPath, doc))
		}
		return runErr
	}
	res, topic := out.Workloads[0].Probe, out.Topics[0]
	if runErr == nil {
		// Like the Apache tool, the summary is printed only for a complete
		// run; a failed one leaves its partial numbers in --json.
		compat.E2ESummary(st.stdout, res.Count, res.TotalNanos,
			compat.E2EPercentile(res.MsCounts, 0.5), compat.E2EPercentile(res.MsCounts, 0.99), compat.E2EPercentile(res.MsCounts, 0.999))
	} else {
		runErr = fmt.Errorf("%w (%d of %d records measured)", runErr, res.Count, ea.NumRecords)
	}
	if ea.JSONPath != "" {
		doc, err := e2eDocument(ea, pc, cc, topic, res, started, runErr)
		if err == nil {
			doc.BrokerVersions = out.BrokerVersions
			err = result.Write(ea.JSONPath, doc)
		}
		runErr = errors.Join(runErr, err)
	}
	return runErr
}

// e2eConfigs builds the producer and the consumer configuration from the
// one properties file (and kbench's --command-property), with what the
// Apache tool sets on top: bootstrap servers, acks and linger.ms=0 for the
// producer, no commits and the latest offset for the consumer.
func e2eConfigs(ea *compat.E2EArgs, stderr io.Writer) (*kafkaconf.Producer, *kafkaconf.Consumer, error) {
	var common []kafkaconf.Prop
	if ea.ConfigFile != "" {
		fp, err := kafkaconf.ReadFile(ea.ConfigFile)
		if err != nil {
			return nil, nil, userr.New(err)
		}
		common = append(common, fp...)
	}
	for _, pp := range ea.PropPairs {
		kv, err := kafkaconf.ParsePairs([]string{pp.Item}, pp.Option)
		if err != nil {
			return nil, nil, err
		}
		common = append(common, kv...)
	}
	bootstrapSource := "--bootstrap-server"
	if ea.Positional {
		bootstrapSource = "broker_list"
	}
	common = append(common, kafkaconf.Prop{Key: "bootstrap.servers", Value: ea.BootstrapServer, Source: bootstrapSource})
	tool := compat.E2ETool
	if err := checkOverridden(common, "auto.offset.reset", "latest", "the tool reads only what it sends", stderr); err != nil {
		return nil, nil, err
	}
	pp := append(append([]kafkaconf.Prop(nil), common...),
		kafkaconf.Prop{Key: "linger.ms", Value: "0", Source: tool},
		kafkaconf.Prop{Key: "acks", Value: ea.Acks, Source: "--producer-acks"})
	cp := append(append([]kafkaconf.Prop(nil), common...),
		kafkaconf.Prop{Key: "enable.auto.commit", Value: "false", Source: tool},
		kafkaconf.Prop{Key: "auto.offset.reset", Value: "latest", Source: tool},
		// Java sets 0 so that no fetch waits to batch; 10 ms is franz-go's floor, and
		// a waiting fetch returns as soon as the record arrives anyway.
		kafkaconf.Prop{Key: "fetch.max.wait.ms", Value: "10", Source: tool})
	pc, pw, perr := kafkaconf.ParseProducer(pp)
	cc, cw, cerr := kafkaconf.ParseConsumer(cp)
	for _, w := range e2eWarnings(pw, cw) {
		fmt.Fprintf(stderr, "kbench: warning: %s\n", w)
	}
	if err := errors.Join(perr, cerr); err != nil {
		return nil, nil, err
	}
	return pc, cc, nil
}

// e2eWarnings merges the two clients' warnings about the shared file,
// leaving out each client's warning about the other's properties, which
// belong there.
func e2eWarnings(producer, consumer []kafkaconf.Warning) []kafkaconf.Warning {
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

func e2eDocument(ea *compat.E2EArgs, pc *kafkaconf.Producer, cc *kafkaconf.Consumer, topic kadmin.TopicInfo,
	res *workload.E2EResult, started time.Time, runErr error) (*result.Document, error) {
	lat, err := result.LatencyOf(res.Latency)
	if err != nil {
		return nil, err
	}
	doc := result.New(result.KindEndToEnd, version, started, e2eConfig(ea, pc, cc))
	doc.Topic = resultTopic(topic)
	doc.EndToEnd = &lat
	doc.Finish(runErr)
	return doc, nil
}

// e2eConfig is the run's settings as the result document records them.
func e2eConfig(ea *compat.E2EArgs, pc *kafkaconf.Producer, cc *kafkaconf.Consumer) map[string]string {
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
