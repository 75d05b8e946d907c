package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestMain stops the real local broker that integration tests start on
// first use (testkafka.Bootstrap), once every test has run. Run as
// `<test binary> cluster proxies CONFIG`, it is kbench serving a
// network-faults cluster's proxies: the command clusterOpts gives the
// cluster package is this executable's. Run as `<test binary> hosts-...`,
// it is a helper of TestWorkersOnSeparateHosts (hostsHelper).
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "cluster" && os.Args[2] == "proxies" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, append([]string{"kbench"}, os.Args[1:]...), newProcessState())
		stop()
		os.Exit(code)
	}
	if handled, code := hostsHelper(os.Args); handled {
		os.Exit(code)
	}
	flag.Parse()
	if !flagGiven("test.parallel") {
		// Most tests here wait on kbench's own bounds (a paused broker's
		// 15 s check, a drain, a stall) rather than use the CPU: at go
		// test's default of GOMAXPROCS (2 here) at a time the package
		// took 260 s under -short, at 6 about 90 s. -parallel still
		// decides when given.
		_ = flag.Set("test.parallel", strconv.Itoa(defaultParallel))
	}
	code := testkafka.Main(m)
	// The suite's budget of JVM cluster starts (docs/notes.md, "Suite
	// time"): the shared broker, the shared fault cluster, the secured
	// broker, a plan's own cluster and the brokers in a network namespace
	// of TestWorkersOnSeparateHosts. Another start belongs on one of
	// them, on kfake (testkafka.Fake) or on the run seam (state.runScenario).
	n := cluster.Started() + clusterStartedElsewhere.Load()
	fmt.Fprintf(os.Stderr, "cmd/kbench: %d JVM cluster start(s), budget %d\n", n, clusterStartBudget)
	if n > clusterStartBudget && code == 0 {
		fmt.Fprintf(os.Stderr, "cmd/kbench: over the budget of %d JVM cluster starts\n", clusterStartBudget)
		code = 1
	}
	os.Exit(code)
}

// clusterStartedElsewhere counts the JVM clusters tests started through
// another process (a `kbench cluster up` in a network namespace), which
// cluster.Started does not see.
var clusterStartedElsewhere atomic.Int64

// defaultParallel is how many parallel tests run at once unless -parallel
// says otherwise.
const defaultParallel = 6

// flagGiven says whether the command line set flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// clusterStartBudget is how many JVM clusters a run of the package's
// tests may start.
const clusterStartBudget = 5
