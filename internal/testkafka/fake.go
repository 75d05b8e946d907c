package testkafka

import (
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// fake is the binary's shared fake cluster (Fake), closed by Main.
var fake struct {
	mu      sync.Mutex
	cluster *kfake.Cluster
	err     error
}

// Fake returns the bootstrap address of an in-process fake Kafka cluster
// (franz-go's kfake, one broker on a loopback port): one per test binary,
// started on first use and closed by Main, starting no JVM. It is for
// tests where a broker's behaviour is not the point (what a command
// prints, writes and exits with); kbench processes a test starts reach it
// too. Topics are created on first use, as Kafka's default
// auto.create.topics.enable does. docs/notes.md lists what kfake does not
// model; a test of those uses Bootstrap.
func Fake(t testing.TB) string {
	t.Helper()
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.cluster == nil && fake.err == nil {
		fake.cluster, fake.err = kfake.NewCluster(append(fakeOpts(), kfake.AllowAutoTopicCreation())...)
	}
	if fake.err != nil {
		t.Fatalf("testkafka: no fake Kafka cluster: %v", fake.err)
	}
	return fake.cluster.ListenAddrs()[0]
}

// NewFake starts a fake Kafka cluster of the test's own, closed when the
// test ends: for tests that hold its requests (kfakehold, a broker that
// stops answering) or close it (a broker that dies), which must not touch
// the shared one. It has one broker and creates topics of one partition
// on first use only with kfake.AllowAutoTopicCreation among opts.
func NewFake(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append(fakeOpts(), opts...)...)
	if err != nil {
		t.Fatalf("testkafka: no fake Kafka cluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// fakeOpts are a fake cluster's options: one broker, new topics of one
// partition, as a fresh Kafka broker has.
func fakeOpts() []kfake.Opt {
	return []kfake.Opt{kfake.NumBrokers(1), kfake.DefaultNumPartitions(1)}
}

// closeFake closes the shared fake cluster, if one was started.
func closeFake() {
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.cluster != nil {
		fake.cluster.Close()
		fake.cluster = nil
	}
}
