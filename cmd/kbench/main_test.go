package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/kbench/kbench/internal/testkafka"
)

// TestMain stops the real local broker that integration tests start on
// first use (testkafka.Bootstrap), once every test has run. Run as
// `<test binary> cluster proxies CONFIG`, it is kbench serving a
// network-faults cluster's proxies: the command clusterOpts gives the
// cluster package is this executable's.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "cluster" && os.Args[2] == "proxies" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, append([]string{"kbench"}, os.Args[1:]...), newProcessState())
		stop()
		os.Exit(code)
	}
	os.Exit(testkafka.Main(m))
}
