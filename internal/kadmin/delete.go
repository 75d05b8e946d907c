package kadmin

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DeleteTopics deletes the topics that exist among names and returns how
// many it deleted; one already gone is not an error. Awaited: it returns
// when ctx ends, whatever a broker holds.
func DeleteTopics(ctx context.Context, opts []kgo.Opt, names []string) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, fmt.Errorf("create admin client: %w", err)
	}
	defer cl.Close()
	resps, err := Await(ctx, func(ctx context.Context) (kadm.DeleteTopicResponses, error) {
		return kadm.NewClient(cl).DeleteTopics(ctx, names...)
	})
	if err != nil {
		return 0, fmt.Errorf("delete topics: %w", err)
	}
	deleted := 0
	var errs []error
	for _, r := range resps.Sorted() {
		switch {
		case r.Err == nil:
			deleted++
		case errors.Is(r.Err, kerr.UnknownTopicOrPartition):
		default:
			errs = append(errs, fmt.Errorf("delete topic %s: %w", r.Topic, r.Err))
		}
	}
	return deleted, errors.Join(errs...)
}
