package summary

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/payload"
)

// fakeProduceCluster is kfakehold.ProduceCluster, under the name the
// tests moved from study use.
func fakeProduceCluster(t *testing.T, control func(hold *kfakehold.Holder, n int64, req kmsg.Request) (kmsg.Response, error, bool)) []string {
	t.Helper()
	return kfakehold.ProduceCluster(t, control)
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
