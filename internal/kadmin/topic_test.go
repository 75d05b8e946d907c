package kadmin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/userr"
)

// Unit tests against franz-go's in-process cluster; the real-broker paths
// (auto-creation in KRaft, a silent listener, a killed broker) are covered by
// cmd/kbench's integration tests.

func fake(t *testing.T, opts ...kfake.Opt) []kgo.Opt {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(2, "exists")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
}

func TestEnsureTopic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		spec           TopicSpec
		autoCreate     bool
		wantPartitions int
		wantCreated    bool
		wantUserErr    string
	}{
		{"exists", TopicSpec{Name: "exists"}, false, 2, false, ""},
		{"exists, creation default only", TopicSpec{Name: "exists", Partitions: 5}, false, 2, false, ""},
		{"exists with the partitions asked for", TopicSpec{Name: "exists", Partitions: 2, PartitionsFlag: "--partitions"}, false, 2, false, ""},
		// Regression: --partitions on an existing topic with another count was ignored.
		{"exists with other partitions", TopicSpec{Name: "exists", Partitions: 5, PartitionsFlag: "--partitions"}, false, 0, false,
			`topic "exists" already has 2 partitions, not the 5 --partitions asks for: delete the topic, use another name, or leave out --partitions`},
		{"exists with other replication", TopicSpec{Name: "exists", ReplicationFactor: 3, ReplicationFlag: "--replication-factor"}, false, 0, false,
			`topic "exists" already has 1 replica per partition, not the 3 --replication-factor asks for`},
		{"created by kbench", TopicSpec{Name: "new", Partitions: 4, ReplicationFactor: 1}, false, 4, true, ""},
		{"auto-created by the broker", TopicSpec{Name: "auto"}, true, 1, true, ""},
		{"missing, no auto-create", TopicSpec{Name: "absent"}, false, 0, false, `topic "absent" does not exist and the broker did not create it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var extra []kfake.Opt
			if tt.autoCreate {
				extra = append(extra, kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			info, err := EnsureTopic(ctx, fake(t, extra...), tt.spec)
			if tt.wantUserErr != "" {
				if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.wantUserErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantUserErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Partitions != tt.wantPartitions || info.Created != tt.wantCreated || info.Name != tt.spec.Name {
				t.Fatalf("info %+v, want %d partitions created=%v", info, tt.wantPartitions, tt.wantCreated)
			}
		})
	}
}

func TestEnsureTopicUnreachable(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, err := EnsureTopic(context.Background(), []kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, TopicSpec{Name: "t"})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("err = %v, want ErrUnreachable naming the address", err)
	}
	if time.Since(start) > ConnectTimeout+2*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}
