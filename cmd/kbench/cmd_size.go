package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/sizing"
	"github.com/kbench/kbench/internal/userr"
)

// sizeOptions are kbench size's flags, as typed: internal/sizing parses them
// so that its errors can show the accepted forms.
type sizeOptions struct {
	rate, recordSize, retention string
	replication, brokers        int
	consumers                   int
	headroom                    string
	producerRate, consumerRate  string
	fromResults                 []string
	from                        string
	json                        bool
	replicationSet              bool // --replication was given, not defaulted
}

func (o *sizeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.rate, "rate", "", "records per second to plan for (required): 10000/s, 10k/s, 600000/min")
	fs.StringVar(&o.recordSize, "record-size", "", "average record size (required): 2500, 2.5KB (×1,000), 2.5KiB (×1,024)")
	fs.StringVar(&o.retention, "retention", "", "how long records are kept (required): 7d, 168h, 1w, 30m")
	fs.IntVar(&o.replication, "replication", 3, "replication factor: copies of every partition, leader included")
	fs.IntVar(&o.brokers, "brokers", 3, "brokers sharing the topic; at least --replication")
	fs.IntVar(&o.consumers, "consumers", 1, "consumer groups, each reading every record once")
	fs.StringVar(&o.headroom, "headroom", "", "extra storage on top of what retention needs: 30% or 0.3 (default none)")
	fs.StringVar(&o.producerRate, "partition-producer-rate", "", "records/s one partition takes from producers, measured by hand: 50000/s")
	fs.StringVar(&o.consumerRate, "partition-consumer-rate", "", "records/s one partition is read at by one consumer, measured by hand: 2500/s")
	fs.StringArrayVar(&o.fromResults, "from-results", nil, "kbench result document (--json of producer-perf-test or consumer-perf-test) or folder of them; repeatable")
	fs.StringVar(&o.from, "from", "", "a kbench run's result.json (or its results folder) on a cluster kbench started: size the brokers' CPU by its records/s per broker core")
	fs.BoolVar(&o.json, "json", false, "print a JSON document (schema "+sizing.JSONSchema+") instead of the text report")
}

func newSizeCmd(st *state) *cobra.Command {
	var opts sizeOptions
	cmd := &cobra.Command{
		Use:   "size --rate RATE --record-size SIZE --retention DURATION [flags]",
		Short: "Plan capacity: throughput, storage, network and partitions, with the arithmetic shown",
		Long: `size turns a record rate, record size, retention, replication and broker count into
ingest and replication throughput, storage in total and per broker, network in and out per
broker, and partition guidance. Every figure shows its arithmetic, in decimal units (KB =
1,000 B) with the binary reading (KiB = 1,024 B) next to it.

Partition guidance rests on per-partition throughput measured on your own cluster: pass the
--json results of producer-perf-test and consumer-perf-test runs on a 1-partition topic with
--from-results, or give the rates with --partition-producer-rate and --partition-consumer-rate.

Broker CPU rests on a kbench run on a cluster kbench started: --from its result.json (or
results folder) gives the records/s one broker core carried, and the cores the rate needs.`,
		Example: `  kbench size --rate 10000/s --record-size 2.5KB --retention 7d --replication 3 --brokers 4
  kbench size --rate 10k/s --record-size 2.5KB --retention 1w --brokers 4 --headroom 30% --from-results results/
  kbench size --rate 50k/s --record-size 1KB --retention 3d --brokers 3 --from results/acks-all`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return userr.Errorf("%s: unexpected argument %q; every input is a flag (see '%s --help')", c.CommandPath(), args[0], c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.replicationSet = c.Flags().Changed("replication")
			return runSize(c.Context(), opts, st.stdout)
		},
	}
	opts.AddFlags(cmd.Flags())
	return cmd
}

// runSize computes and prints the estimate. The arithmetic takes no time, so
// ctx is not consulted.
func runSize(_ context.Context, opts sizeOptions, w io.Writer) error {
	in, err := opts.input()
	if err != nil {
		return err
	}
	e, err := sizing.Compute(in)
	if err != nil && !opts.replicationSet && opts.replication > opts.brokers {
		// The user may not know a replication they never typed.
		return fmt.Errorf("%w (--replication defaults to %d)", err, opts.replication)
	}
	if err != nil {
		return err
	}
	if opts.json {
		return sizing.WriteJSON(w, e)
	}
	return sizing.WriteText(w, e)
}

// input parses the flags; every error names its flag and is the user's.
func (o sizeOptions) input() (sizing.Input, error) {
	in := sizing.Input{Replication: o.replication, Brokers: o.brokers, Consumers: o.consumers}
	for _, req := range []struct{ flag, val, example string }{
		{"--rate", o.rate, "--rate 10000/s"},
		{"--record-size", o.recordSize, "--record-size 2.5KB"},
		{"--retention", o.retention, "--retention 7d"},
	} {
		if req.val == "" {
			return in, userr.Errorf("size: %s is required, such as %s", req.flag, req.example)
		}
	}
	var err error
	if in.Rate, err = sizing.ParseRate(o.rate); err != nil {
		return in, fmt.Errorf("--rate %w", err)
	}
	if in.RecordSize, err = sizing.ParseSize(o.recordSize); err != nil {
		return in, fmt.Errorf("--record-size %w", err)
	}
	if in.Retention, err = sizing.ParseDuration(o.retention); err != nil {
		return in, fmt.Errorf("--retention %w", err)
	}
	if in.Headroom, err = sizing.ParseHeadroom(o.headroom); err != nil {
		return in, fmt.Errorf("--headroom %w", err)
	}
	if len(o.fromResults) > 0 {
		if in.Measured, err = sizing.FromResults(o.fromResults); err != nil {
			return in, fmt.Errorf("--from-results: %w", err)
		}
	}
	if o.from != "" {
		if in.Cores, err = sizing.FromResult(o.from); err != nil {
			return in, fmt.Errorf("--from: %w", err)
		}
	}
	// A rate given by hand wins over results: it is the more deliberate input.
	for _, h := range []struct{ flag, val, kind string }{
		{"--partition-producer-rate", o.producerRate, result.KindProducerPerf},
		{"--partition-consumer-rate", o.consumerRate, result.KindConsumerPerf},
	} {
		if h.val == "" {
			continue
		}
		r, err := sizing.ParseRate(h.val)
		if err != nil {
			return in, fmt.Errorf("%s %w", h.flag, err)
		}
		in.Measured.Override(h.kind, &sizing.PartitionRate{RecordsPerSec: r.PerSec, From: h.flag + " " + r.Text})
	}
	return in, nil
}
