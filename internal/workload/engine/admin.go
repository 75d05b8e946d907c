package engine

import (
	"context"
	"time"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// ListOffsets lists the topics' start or end offsets, retrying retriable
// errors within AdminTimeout: a topic created a moment ago is not yet
// hosted by its leader.
func ListOffsets(ctx context.Context, adm *kadm.Client, end bool, topics ...string) (kadm.ListedOffsets, error) {
	lctx, cancel := context.WithTimeout(ctx, AdminTimeout)
	defer cancel()
	list := adm.ListStartOffsets
	if end {
		list = adm.ListEndOffsets
	}
	for {
		offs, err := kadmin.Await(lctx, func(ctx context.Context) (kadm.ListedOffsets, error) { return list(ctx, topics...) })
		if err == nil {
			err = offs.Error()
		}
		if err == nil || !kerr.IsRetriable(err) {
			return offs, err
		}
		select {
		case <-lctx.Done():
			return offs, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}
