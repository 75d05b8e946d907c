package kadmin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/userr"
)

// Integration tests against the shared real broker (internal/testkafka).

func TestMain(m *testing.M) { os.Exit(testkafka.Main(m)) }

// TestEnsureTopicExistingMismatch: regression: --partitions N on an existing
// topic with another count was silently ignored, so a partition sweep
// measured the wrong configuration.
func TestEnsureTopicExistingMismatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := fmt.Sprintf("runner-mismatch-%d", time.Now().UnixNano())
	opts := []kgo.Opt{kgo.SeedBrokers(bootstrap)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := EnsureTopic(ctx, opts, TopicSpec{Name: topic, Partitions: 3, PartitionsFlag: "--partitions"}); err != nil {
		t.Fatalf("create: %v", err)
	}
	tests := []struct {
		name string
		spec TopicSpec
		want string // "" for no error
	}{
		{"same partitions", TopicSpec{Name: topic, Partitions: 3, PartitionsFlag: "--partitions"}, ""},
		{"no partitions asked", TopicSpec{Name: topic}, ""},
		{"other partitions", TopicSpec{Name: topic, Partitions: 6, PartitionsFlag: "--partitions"},
			fmt.Sprintf("topic %q already has 3 partitions, not the 6 --partitions asks for: delete the topic, use another name, or leave out --partitions", topic)},
		{"same replication", TopicSpec{Name: topic, ReplicationFactor: 1, ReplicationFlag: "--replication-factor"}, ""},
		{"other replication", TopicSpec{Name: topic, ReplicationFactor: 2, ReplicationFlag: "--replication-factor"},
			fmt.Sprintf("topic %q already has 1 replica per partition, not the 2 --replication-factor asks for", topic)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := EnsureTopic(ctx, opts, tt.spec)
			if tt.want == "" {
				if err != nil || info.Partitions != 3 || info.Created {
					t.Fatalf("info %+v, err %v; want the existing 3-partition topic", info, err)
				}
				return
			}
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a usage error containing %q", err, tt.want)
			}
		})
	}
}

// TestPingController: regression: a KRaft controller's port given as the
// bootstrap server was reported as "is SASL missing?".
func TestPingController(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	c := testkafka.Cluster(t)
	if c == nil {
		t.Skip("$KBENCH_TEST_BOOTSTRAP names a broker; its controller port is unknown")
	}
	addr := fmt.Sprintf("127.0.0.1:%d", c.Brokers[0].ControllerPort)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := EnsureTopic(ctx, []kgo.Opt{kgo.SeedBrokers(addr)}, TopicSpec{Name: "t"})
	want := "at " + addr + ": it answers like a KRaft controller listener, not a broker"
	if err == nil || !userr.Is(err) || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want a usage error containing %q", err, want)
	}
	if strings.Contains(err.Error(), "SASL") {
		t.Fatalf("err = %v, still asks about SASL", err)
	}
}

// TestBrokerVersions: the result records the release of the brokers it
// measured; the test broker runs the local cluster's version.
func TestBrokerVersions(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	c := testkafka.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, n, err := BrokerVersions(ctx, []kgo.Opt{kgo.SeedBrokers(c.Bootstrap())})
	if err != nil {
		t.Fatal(err)
	}
	// franz-go names a release by major.minor ("v4.3"); "at least" when
	// the broker is newer than the releases it knows.
	minor := "v" + strings.Join(strings.SplitN(c.Version, ".", 3)[:2], ".")
	if len(got) != 1 || !strings.Contains(got[0], minor) {
		t.Fatalf("BrokerVersions = %q, want one guess naming %s", got, minor)
	}
	if n != 1 {
		t.Errorf("%d brokers answered, want the test cluster's 1", n)
	}
}
