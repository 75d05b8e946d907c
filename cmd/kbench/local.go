package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/userr"
)

// startLocalCluster starts a throwaway local Kafka for one run (--local) and
// returns a function that stops it and removes its data.
func startLocalCluster(ctx context.Context, st *state, brokers int, version string) (stop func(), bootstrap string, err error) {
	if version == "" {
		version = cluster.DefaultVersion
	}
	opts := append(clusterOpts(st),
		cluster.WithBrokers(brokers),
		cluster.WithVersion(version),
		cluster.WithName(fmt.Sprintf("run-%d", os.Getpid())),
		cluster.WithStopOnExit(true), // never leave brokers behind if kbench dies
	)
	if err := cluster.Check(opts...); err != nil { // before saying it starts
		return nil, "", localClusterErr("start for --local", localFlags, err)
	}
	fmt.Fprintf(st.stderr, "kbench: starting a local Apache Kafka %s with %d broker(s) for this run\n", version, brokers)
	c, err := cluster.Start(ctx, opts...)
	if err != nil {
		return nil, "", localClusterErr("start for --local", localFlags, err)
	}
	stop = func() {
		// The run's context may be cancelled (Ctrl-C); stopping must still happen.
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(sctx, false); err != nil {
			fmt.Fprintf(st.stderr, "kbench: stop local cluster: %v\n", err)
		}
	}
	return stop, c.Bootstrap(), nil
}

// localFlags and planLocalFields name, for the cluster options a drop-in
// command's --local and a plan's cluster.local set, what the user wrote:
// the cluster package names cluster up's flags.
var (
	localFlags      = map[string]string{"kafka-version": "--local-kafka-version", "brokers": "--local-brokers"}
	planLocalFields = map[string]string{"kafka-version": "cluster.local.version", "brokers": "cluster.local.brokers",
		"heap": "cluster.local.heap", "broker property": "cluster.local.broker_configs", "timeout": "cluster.local.timeout",
		"tiered-storage": "cluster.local.tiered_storage"}
)

// localClusterErr is clusterErr naming the option as the user gave it.
func localClusterErr(what string, names map[string]string, err error) error {
	var oe *cluster.OptionError
	if errors.As(err, &oe) {
		if name, ok := names[oe.Option]; ok {
			return userr.Errorf("%s %q: %s", name, oe.Value, oe.Reason)
		}
	}
	return clusterErr(what, err)
}
