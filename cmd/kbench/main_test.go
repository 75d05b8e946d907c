package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/kbench/kbench/internal/cluster"
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
	code := testkafka.Main(m)
	// The suite's budget of JVM cluster starts (docs/notes.md, "Suite
	// time"): the shared broker, the shared fault cluster, the secured
	// broker and a plan's own cluster. Another start belongs on one of
	// them, on kfake (testkafka.Fake) or on the run seam (state.runScenario).
	n := cluster.Started()
	fmt.Fprintf(os.Stderr, "cmd/kbench: %d JVM cluster start(s), budget %d\n", n, clusterStartBudget)
	if n > clusterStartBudget && code == 0 {
		fmt.Fprintf(os.Stderr, "cmd/kbench: over the budget of %d JVM cluster starts\n", clusterStartBudget)
		code = 1
	}
	os.Exit(code)
}

// clusterStartBudget is how many JVM clusters a run of the package's
// tests may start.
const clusterStartBudget = 4
