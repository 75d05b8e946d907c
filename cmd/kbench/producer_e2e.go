package main

import (
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// e2eConsumerSpec is, for --e2e, a consumer of the producer's topic with
// the producer's connection settings; the runner starts it at the topic's
// end before the producers, and stops it once it has read every
// acknowledged record (at most 30 s after the producers finish).
func e2eConsumerSpec(st *state, props []kafkaconf.Prop, pc *kafkaconf.Producer,
	pa *compat.ProducerArgs) (*workload.ConsumerSpec, error) {
	cprops := append(append([]kafkaconf.Prop(nil), props...),
		kafkaconf.Prop{Key: "client.id", Value: pc.ClientID + "-e2e", Source: "--e2e"},
		kafkaconf.Prop{Key: "check.crcs", Value: "false", Source: "--e2e"})
	cc, warnings, err := kafkaconf.ParseConsumer(cprops)
	for _, w := range e2eWarnings(nil, warnings) {
		fmt.Fprintf(st.stderr, "kbench: warning: --e2e consumer: %s\n", w)
	}
	if err != nil {
		return nil, err
	}
	cc.BootstrapServers = pc.BootstrapServers
	copts, err := cc.Opts()
	if err != nil {
		return nil, err
	}
	return &workload.ConsumerSpec{
		Topics:     []string{pa.Topic},
		ClientOpts: func(int) []kgo.Opt { return copts },
		Interval:   pa.ReportingInterval,
	}, nil
}

// printE2E prints kbench's end-to-end line for --e2e and returns the
// latency for the result document.
func printE2E(w io.Writer, res *workload.ConsumerResult, acked int64) (*result.Latency, error) {
	if res == nil {
		return nil, fmt.Errorf("--e2e consumer measured nothing")
	}
	_, lat, err := runner.ConsumerSummary(res, 0)
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
