package consume

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// endOffset returns the sum of the topic's partitions' end offsets: the
// number of records it holds when nothing was deleted.
func consEndOffset(tb testing.TB, cl *kgo.Client, topic string) int64 {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		tb.Fatalf("list end offsets of %s: %v", topic, err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

// uniqueTopic returns a topic name no other test uses.
func consTopic(tb testing.TB) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(tb.Name())
	return strings.ToLower(name) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}
