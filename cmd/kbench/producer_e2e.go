package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload"
)

// e2eDrainTimeout bounds the wait for the --e2e consumer to read the last
// acknowledged records after the producers finish.
const e2eDrainTimeout = 30 * time.Second

// startE2EConsumer starts, for --e2e, a consumer of the producer's topic
// from its current end, with the producer's connection settings; it is
// assigned every partition before it returns, so it sees every record of
// the run.
func startE2EConsumer(ctx context.Context, st *state, props []kafkaconf.Prop, pc *kafkaconf.Producer,
	pa *compat.ProducerArgs) (*workload.ConsumerRun, error) {
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
	return workload.StartConsumer(ctx, workload.ConsumerSpec{
		Topics:     []string{pa.Topic},
		Latest:     true,
		ClientOpts: func(int) []kgo.Opt { return copts },
		Latency:    true,
		Interval:   pa.ReportingInterval,
	})
}

// finishE2E waits for the --e2e consumer to read the acked records (at
// most e2eDrainTimeout), prints kbench's end-to-end line and returns the
// latency for the result document.
func finishE2E(w io.Writer, run *workload.ConsumerRun, acked int64) (*result.Latency, error) {
	run.Finish(acked)
	t := time.AfterFunc(e2eDrainTimeout, run.Stop)
	defer t.Stop()
	res, err := run.Wait()
	if res == nil {
		return nil, fmt.Errorf("--e2e consumer: %w", err)
	}
	_, lat, serr := res.Summary(0)
	if serr != nil {
		return nil, serr
	}
	if lat == nil {
		return nil, fmt.Errorf("--e2e consumer measured no latency: %v", err)
	}
	ms := func(us int64) int64 { return roundMs(us) }
	fmt.Fprintf(w, "%d records consumed end to end, %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
		lat.Count, lat.Mean/1000, float64(lat.Max)/1000, ms(lat.P50), ms(lat.P95), ms(lat.P99), ms(lat.P999))
	if lat.Count < acked {
		return lat, fmt.Errorf("--e2e consumer read %d of the %d acknowledged records within %s", lat.Count, acked, e2eDrainTimeout)
	}
	return lat, err
}
