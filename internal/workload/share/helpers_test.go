package share

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/testkafka"
)

// realTopic creates a topic on the test broker and produces n records of
// 100 bytes to it, round robin over its partitions.
func realTopic(t *testing.T, bootstrap string, partitions int32, n int) string {
	t.Helper()
	topic := consTopic(t)
	testkafka.Topic(t, bootstrap, topic, partitions, n, 100)
	return topic
}

// uniqueTopic returns a topic name no other test uses.
func consTopic(tb testing.TB) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(tb.Name())
	return strings.ToLower(name) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}
