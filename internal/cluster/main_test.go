package cluster

import (
	"context"
	"fmt"
	"os"
	ossignal "os/signal"
	"syscall"
	"testing"

	"github.com/kbench/kbench/internal/leaktest"
)

// serveProxiesArg makes this test binary serve a network-faults cluster's
// proxies, as kbench's hidden `cluster proxies` command does: tests start
// clusters with WithProxyCommand(testProxyCommand()...).
const serveProxiesArg = "serve-proxies"

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == serveProxiesArg {
		ctx, stop := ossignal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := ServeProxies(ctx, os.Args[2], os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	leaktest.Main(m, nil) // fails the package when a goroutine outlives its tests
}

// testProxyCommand runs this test binary as the proxy process.
func testProxyCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, serveProxiesArg}
}
