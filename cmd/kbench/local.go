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
func startLocalCluster(ctx context.Context, st *state, brokers int) (stop func(), bootstrap string, err error) {
	fmt.Fprintf(st.stderr, "kbench: starting a local Apache Kafka with %d broker(s) for this run\n", brokers)
	c, err := cluster.Start(ctx,
		cluster.WithBrokers(brokers),
		cluster.WithName(fmt.Sprintf("run-%d", os.Getpid())),
		cluster.WithCacheDir(st.cacheDir),
		cluster.WithLog(st.stderr),
		cluster.WithStopOnExit(true), // never leave brokers behind if kbench dies
	)
	if err != nil {
		return nil, "", fmt.Errorf("start local cluster: %w", err)
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
