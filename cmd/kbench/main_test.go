package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"

	"github.com/kbench/kbench/internal/testkafka"
)

// testParallel is how many tests of this package run at once unless
// -parallel says otherwise (go test's default is GOMAXPROCS, 2 on the CI
// machine). Most of these tests wait: for a stalled broker's bound, a
// fault's timeline, a run's duration; the ones that break brokers also
// wait for a shared cluster of their shape (sharedcluster_test.go), which
// bounds how many of those run at once, holding a place of the -parallel
// count while they wait; cluster starts go one at a time (startGate).
const testParallel = 12

// TestMain stops the real local broker that integration tests start on
// first use (testkafka.Bootstrap) and the shared clusters that tests
// breaking brokers borrow, once every test has run. Run as
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
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(testParallel)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	code := testkafka.Main(m)
	if err := stopSharedClusters(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
