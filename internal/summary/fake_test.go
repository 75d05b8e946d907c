package summary

import (
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/payload"
)

// fakeProduceCluster is an in-process cluster with topic "t" of one
// partition; control, if set, sees every produce request with its count.
func fakeProduceCluster(t *testing.T, control func(hold *kfakehold.Holder, n int64, req kmsg.Request) (kmsg.Response, error, bool)) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	hold := kfakehold.New(t, c)
	var n atomic.Int64
	if control != nil {
		c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return control(hold, n.Add(1), req)
		})
	}
	return c.ListenAddrs()
}

// values are random 100-byte record values.
func values(t *testing.T) payload.Source {
	t.Helper()
	v, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
