package testkafka

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
)

// registryStartTimeout bounds the first RegistryURL: a first-ever fetch
// of Apicurio (about 10 s) and its start beside a busy machine's tests.
const registryStartTimeout = 4 * time.Minute

var registry struct {
	mu      sync.Mutex
	started bool
	url     string
	err     error
}

// RegistryURL returns the schema.registry.url of a real schema registry
// (Apicurio, fetched with mvn like Kafka) beside the broker Bootstrap
// gives: started once per test binary and stopped with it by Main.
// $KBENCH_TEST_SCHEMA_REGISTRY is used when set; with
// $KBENCH_TEST_BOOTSTRAP and without it the test fails saying so, as a
// test without a broker does.
func RegistryURL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv("KBENCH_TEST_SCHEMA_REGISTRY"); u != "" {
		return u
	}
	SkipShort(t)
	if os.Getenv("KBENCH_TEST_BOOTSTRAP") != "" {
		t.Fatal("testkafka: $KBENCH_TEST_BOOTSTRAP is set but $KBENCH_TEST_SCHEMA_REGISTRY is not: give the URL of a registry beside that broker")
	}
	c := Cluster(t)
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if !registry.started {
		registry.started = true
		ctx, cancel := context.WithTimeout(context.Background(), registryStartTimeout)
		defer cancel()
		cacheDir, err := cacheDir()
		if err == nil {
			var progress bytes.Buffer
			err = c.AddRegistry(ctx, cluster.WithCacheDir(cacheDir), cluster.WithLog(&progress), cluster.WithStopOnExit(true))
			if err != nil {
				err = fmt.Errorf("%w\nprogress:\n%s", err, progress.String())
			}
		}
		registry.url, registry.err = c.RegistryURL(), err
	}
	if registry.err != nil {
		t.Fatalf("testkafka: no local schema registry for this test: %v", registry.err)
	}
	return registry.url
}
