package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/userr"
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
	values = payload.ForBatches(values, pc.BatchSize) // letters that outlast a batch
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
	// After --duration: workload.DefaultDrain; without an acknowledgement
	// in a run of --num-records: workload.DefaultStall.
	var drain time.Duration
	if kafkaconf.Has(props, "delivery.timeout.ms") {
		drain = pc.DeliveryTimeout // the user asked to wait that long
	}
	return compat.RunProducer(ctx, st.env(), pa, pc, props, maxRecord, values, keys, drain)
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
	if !kafkaconf.Has(props, "client.id") {
		props = append(props, kafkaconf.Prop{Key: "client.id", Value: "perf-producer-client", Source: "default of " + compat.ProducerTool})
	}
	txID := pa.TransactionalID
	if txID == "" && pa.TransactionMs > 0 && !kafkaconf.Has(props, "transactional.id") {
		txID = kafkaconf.GeneratedTransactionalID("performance-producer")
	}
	if txID != "" {
		props = append(props, kafkaconf.Prop{Key: "transactional.id", Value: txID, Source: "--transactional-id"})
	}
	return props, nil
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
