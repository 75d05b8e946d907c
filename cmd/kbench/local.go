package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kbench/kbench/internal/cluster"
)

// startLocalCluster starts a throwaway local Kafka for one run (--local) and
// returns a function that stops it and removes its data.
func startLocalCluster(ctx context.Context, st *state, brokers int, version string) (stop func(), bootstrap string, err error) {
	if version == "" {
		version = cluster.DefaultVersion
	}
	fmt.Fprintf(st.stderr, "kbench: starting a local Apache Kafka %s with %d broker(s) for this run\n", version, brokers)
	opts := append(clusterOpts(st),
		cluster.WithBrokers(brokers),
		cluster.WithVersion(version),
		cluster.WithName(fmt.Sprintf("run-%d", os.Getpid())),
		cluster.WithStopOnExit(true), // never leave brokers behind if kbench dies
	)
	c, err := cluster.Start(ctx, opts...)
	if err != nil {
		return nil, "", clusterErr("start for --local", err)
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
