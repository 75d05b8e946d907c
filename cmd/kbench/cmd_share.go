package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

func newShareConsumerPerfCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "share-consumer-perf-test [options]",
		Short: "Drop-in kafka-share-consumer-perf-test: share groups (Kafka queues), same flags, same output",
		Long: "Accepts the options of Apache Kafka's kafka-share-consumer-perf-test (4.1+) and prints the\n" +
			"same header and lines. Run with --help for the options; docs/share-groups.md for what is measured.",
		DisableFlagParsing: true, // the Apache tools' grammar, parsed by internal/compat
		RunE: func(c *cobra.Command, args []string) error {
			return runShareConsumerPerf(c.Context(), args, st)
		},
	}
}

func runShareConsumerPerf(ctx context.Context, args []string, st *state) error {
	sa, err := compat.ParseShareConsumerArgs(args)
	if err != nil {
		return err
	}
	if err := checkJSONPath(sa.JSONPath); err != nil {
		return err
	}
	switch {
	case sa.Help:
		compat.Usage(st.stdout, compat.ShareConsumerUsage, compat.ShareConsumerOptions)
		return nil
	case sa.Version:
		fmt.Fprintf(st.stdout, "kbench %s\n", version)
		return nil
	}
	for _, w := range sa.Warnings {
		fmt.Fprintln(st.stdout, w)
	}
	for _, n := range sa.Notes {
		fmt.Fprintf(st.stderr, "kbench: note: %s\n", n)
	}
	started := time.Now()
	fail := func(err error) error {
		return compat.FailedJSON(st.env(), sa.JSONPath, result.KindSharePerf, started, err)
	}
	props, err := shareConsumerProps(sa)
	if err != nil {
		return fail(err)
	}
	cc, warnings, err := kafkaconf.ParseConsumer(props)
	for _, w := range warnings {
		fmt.Fprintf(st.stderr, "kbench: warning: %s\n", w)
	}
	if err != nil {
		return fail(err)
	}
	if len(cc.BootstrapServers) == 0 {
		return fail(userr.Errorf("%s: no bootstrap servers: pass --bootstrap-server HOST:PORT (or bootstrap.servers=HOST:PORT in --command-property or --command-config)", compat.ShareConsumerTool))
	}
	return compat.RunShareConsumer(ctx, st.env(), sa, cc, started)
}

// shareConsumerProps gathers properties as the Apache tool's props() does:
// the file, then --command-property, then what its options set.
func shareConsumerProps(sa *compat.ShareConsumerArgs) ([]kafkaconf.Prop, error) {
	var props []kafkaconf.Prop
	for _, f := range sa.PropFiles {
		fp, err := kafkaconf.ReadFile(f)
		if err != nil {
			return nil, userr.New(err)
		}
		props = append(props, fp...)
	}
	for _, pp := range sa.PropPairs {
		kv, err := kafkaconf.ParsePairs([]string{pp.Item}, pp.Option)
		if err != nil {
			return nil, err
		}
		props = append(props, kv...)
	}
	tool := "default of " + compat.ShareConsumerTool
	set := func(key, value, source string) {
		props = append(props, kafkaconf.Prop{Key: key, Value: value, Source: source})
	}
	if sa.BootstrapServer != "" {
		set("bootstrap.servers", sa.BootstrapServer, "--bootstrap-server")
	}
	groupSource := "--group"
	if !sa.GroupGiven {
		groupSource = tool + " (--group)"
	}
	set("group.id", sa.Group, groupSource)
	if sa.SocketBufferSize > 0 {
		set("receive.buffer.bytes", strconv.Itoa(sa.SocketBufferSize), "--socket-buffer-size")
	}
	set("fetch.max.bytes", strconv.Itoa(sa.FetchSize), "--fetch-size")
	set("check.crcs", "false", tool)
	if _, ok := lastProp(props, "client.id"); !ok {
		set("client.id", "perf-share-consumer-client", tool)
	}
	return props, nil
}
