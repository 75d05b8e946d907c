package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
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
		return compat.FailedJSON(st.env(), ea.JSONPath, result.KindEndToEnd, started, err)
	}
	return compat.RunEndToEnd(ctx, st.env(), ea, pc, cc, started)
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
	for _, w := range compat.E2EWarnings(pw, cw) {
		fmt.Fprintf(stderr, "kbench: warning: %s\n", w)
	}
	if err := errors.Join(perr, cerr); err != nil {
		return nil, nil, err
	}
	return pc, cc, nil
}
