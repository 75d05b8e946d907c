package kadmin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/userr"
)

// TestTopicNameCollision: regression: a topic whose name differs from an
// existing one only in '.' and '_' was reported as "does not exist" (left
// to auto-creation) or as INVALID_TOPIC_EXCEPTION (created), never as the
// collision with the topic it collides with.
func TestTopicNameCollision(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	opts := []kgo.Opt{kgo.SeedBrokers(testkafka.Bootstrap(t))}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	existing := fmt.Sprintf("collide.a-%d", time.Now().UnixNano())
	if _, err := EnsureTopic(ctx, opts, TopicSpec{Name: existing, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	name := strings.Replace(existing, ".", "_", 1)
	tests := []struct {
		name    string
		prepare func() error
	}{
		{"created", func() error { _, err := EnsureTopic(ctx, opts, TopicSpec{Name: name, Partitions: 1}); return err }},
		{"auto-created", func() error { _, err := EnsureTopic(ctx, opts, TopicSpec{Name: name}); return err }},
		{"recreated", func() error {
			_, err := PrepareTopic(ctx, opts, TopicSpec{Name: name, Partitions: 1}, Recreate)
			return err
		}},
		{"existing: fail", func() error {
			_, err := PrepareTopic(ctx, opts, TopicSpec{Name: name, Partitions: 1}, Fail)
			return err
		}},
	}
	want := fmt.Sprintf("topic %q collides with the existing topic %q", name, existing)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.prepare()
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want a usage error containing %q", err, want)
			}
		})
	}
}
