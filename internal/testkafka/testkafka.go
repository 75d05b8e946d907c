// Package testkafka gives integration tests a real Kafka broker: one
// single-node cluster per test binary, started on first use by Bootstrap
// and stopped by Main.
//
//	func TestMain(m *testing.M) { os.Exit(testkafka.Main(m)) }
//
//	func TestProduce(t *testing.T) {
//		cl, _ := kgo.NewClient(kgo.SeedBrokers(testkafka.Bootstrap(t)))
//		...
//	}
//
// Set $KBENCH_TEST_BOOTSTRAP to test against a broker you run instead.
// Under go test -short (the fast inner loop) a test that asks for the real
// broker is skipped: no JVM starts. Fake gives an in-process fake cluster
// (kfake) for tests where a broker's behaviour is not the point.
package testkafka

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
)

// startTimeout bounds the first Bootstrap: a first-ever fetch of the jars
// (about 10 s) plus a broker start (about 5 s, more on a busy machine).
const startTimeout = 3 * time.Minute

var shared struct {
	mu       sync.Mutex
	started  bool // a start was attempted; err says how it went
	cluster  *cluster.Cluster
	stateDir string
	err      error
}

// Bootstrap returns the bootstrap address of a real local Kafka broker for
// tests: $KBENCH_TEST_BOOTSTRAP when set, else a 1-broker cluster started
// once per test binary (jars cached in the user's cache dir, data in a temp
// dir). Fails the test with a clear message when Java or Maven is missing.
func Bootstrap(t testing.TB) string {
	t.Helper()
	if addr := os.Getenv("KBENCH_TEST_BOOTSTRAP"); addr != "" {
		return addr
	}
	SkipShort(t)
	c, err := start()
	if err != nil {
		t.Fatalf("testkafka: no local Kafka broker for this test: %v", err)
	}
	return c.Bootstrap()
}

// Cluster returns the *cluster.Cluster started by Bootstrap (starting it
// if needed), or nil when $KBENCH_TEST_BOOTSTRAP is used, for tests that
// kill brokers. A test that kills or pauses the broker must restore it
// (Restart, Resume): later tests in the binary share it.
func Cluster(t testing.TB) *cluster.Cluster {
	t.Helper()
	if os.Getenv("KBENCH_TEST_BOOTSTRAP") != "" {
		return nil
	}
	SkipShort(t)
	c, err := start()
	if err != nil {
		t.Fatalf("testkafka: no local Kafka broker for this test: %v", err)
	}
	return c
}

// Main wraps testing.M.Run so the cluster started by Bootstrap is stopped
// afterwards:
//
//	func TestMain(m *testing.M) { os.Exit(testkafka.Main(m)) }
//
// Without Main the broker still dies with the test binary (it is started
// with cluster.WithStopOnExit), but its temp dir is left behind.
func Main(m *testing.M) int {
	code := m.Run()
	closeFake()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testkafka: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// SkipShort skips a test that needs a real Kafka broker (a JVM) under go
// test -short, saying so.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real Kafka broker, which go test -short does not start")
	}
}

// start starts the shared cluster once; a failed start is not retried, so
// every test reports the same cause quickly.
func start() (*cluster.Cluster, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.started {
		return shared.cluster, shared.err
	}
	shared.started = true
	shared.cluster, shared.stateDir, shared.err = startCluster()
	return shared.cluster, shared.err
}

func startCluster() (*cluster.Cluster, string, error) {
	cacheDir, err := cacheDir()
	if err != nil {
		return nil, "", err
	}
	stateDir, err := os.MkdirTemp("", "kbench-testkafka-")
	if err != nil {
		return nil, "", fmt.Errorf("state dir: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	var progress bytes.Buffer
	c, err := cluster.Start(ctx,
		cluster.WithCacheDir(cacheDir),
		cluster.WithStateDir(stateDir),
		cluster.WithName("test"),
		cluster.WithHeap("512m"),
		cluster.WithStopOnExit(true),
		cluster.WithLog(&progress),
	)
	if err != nil {
		os.RemoveAll(stateDir)
		return nil, "", fmt.Errorf("%w\nprogress:\n%s", err, progress.String())
	}
	return c, stateDir, nil
}

// cacheDir matches the CLI's, so the jars are fetched once per machine.
func cacheDir() (string, error) {
	if d := os.Getenv("KBENCH_HOME"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache dir for the Kafka jars (set KBENCH_HOME): %w", err)
	}
	return filepath.Join(d, "kbench"), nil
}

func stop() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cluster == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := shared.cluster.Stop(ctx, false)
	os.RemoveAll(shared.stateDir)
	shared.cluster = nil
	if err != nil {
		return fmt.Errorf("stop test cluster: %w", err)
	}
	return nil
}

// Own starts a single-broker cluster of the test's own, stopped when the
// test ends: for a test that restarts or reconfigures its broker, which
// the shared cluster's other tests would feel.
func Own(t testing.TB) *cluster.Cluster {
	t.Helper()
	SkipShort(t)
	cacheDir, err := cacheDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	var progress bytes.Buffer
	c, err := cluster.Start(ctx,
		cluster.WithCacheDir(cacheDir),
		cluster.WithStateDir(t.TempDir()),
		cluster.WithName("own"),
		cluster.WithHeap("512m"),
		cluster.WithStopOnExit(true),
		cluster.WithLog(&progress),
	)
	if err != nil {
		t.Fatalf("testkafka: start a cluster of the test's own: %v\nprogress:\n%s", err, progress.String())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(ctx, false); err != nil {
			t.Errorf("testkafka: stop the test's own cluster: %v", err)
		}
	})
	return c
}
