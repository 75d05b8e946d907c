package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
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
		return compat.FailedJSON(st.env(), ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	cc, warnings, err := kafkaconf.ParseConsumer(props)
	for _, w := range warnings {
		fmt.Fprintf(st.stderr, "kbench: warning: %s\n", w)
	}
	if err != nil {
		return compat.FailedJSON(st.env(), ca.JSONPath, result.KindConsumerPerf, started, err)
	}
	if len(cc.BootstrapServers) == 0 {
		return compat.FailedJSON(st.env(), ca.JSONPath, result.KindConsumerPerf, started,
			userr.Errorf("%s: no bootstrap servers: pass --bootstrap-server HOST:PORT (or bootstrap.servers=HOST:PORT in --command-property or --command-config)", compat.ConsumerTool))
	}
	return compat.RunConsumer(ctx, st.env(), ca, cc, started)
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
