package testkafka

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestBootstrap(t *testing.T) {
	t.Parallel()
	addr := Bootstrap(t)
	if again := Bootstrap(t); again != addr {
		t.Fatalf("second Bootstrap = %q, want the same broker %q", again, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const topic = "testkafka"
	// Auto-creation takes a moment: wait for the topic (bounded by ctx)
	// instead of failing after franz-go's 4 unknown-topic retries.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.AllowAutoTopicCreation(), kgo.ConsumeTopics(topic),
		kgo.UnknownTopicRetries(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	for ctx.Err() == nil {
		if len(cl.PollFetches(ctx).Records()) > 0 {
			return
		}
	}
	t.Fatalf("consume: %v", ctx.Err())
}

func TestCluster(t *testing.T) {
	t.Parallel()
	if os.Getenv("KBENCH_TEST_BOOTSTRAP") != "" {
		if Cluster(t) != nil {
			t.Fatal("Cluster must be nil with $KBENCH_TEST_BOOTSTRAP")
		}
		return
	}
	c := Cluster(t)
	if c == nil || c.Bootstrap() != Bootstrap(t) || len(c.Brokers) != 1 {
		t.Fatalf("Cluster = %+v, want the 1-broker cluster behind Bootstrap", c)
	}
}

// TestNoJavaFails runs this test binary again without java on PATH: a
// missing broker must fail the test with the cause, never skip it.
func TestNoJavaFails(t *testing.T) {
	if os.Getenv("TESTKAFKA_CHILD") == "1" {
		Bootstrap(t)
		return
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNoJavaFails$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TESTKAFKA_CHILD=1", "PATH=/nonexistent",
		"KBENCH_HOME="+t.TempDir(), "KBENCH_TEST_BOOTSTRAP=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "install Java 17 or newer") || !strings.Contains(string(out), "--- FAIL") {
		t.Fatalf("child test: %v, want a failure naming the missing Java:\n%s", err, out)
	}
}
