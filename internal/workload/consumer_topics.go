package workload

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/userr"
)

// adminTimeout bounds each admin request of a consumer run, so that a
// broker that stops answering fails the step instead of hanging it.
const adminTimeout = 15 * time.Second

// resolveTopics returns the partitions of the topics a spec consumes. A
// topic that does not exist, or a regex that matches none, is the user's
// error, reported at once: the Apache tool would instead wait out its
// timeout and print nothing useful.
func resolveTopics(ctx context.Context, adm *kadm.Client, spec ConsumerSpec) (map[string][]int32, error) {
	mctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	var (
		td  kadm.TopicDetails
		err error
	)
	// Awaited: a paused broker holds franz-go's request past its context.
	if spec.Regex != nil {
		td, err = kadmin.Await(mctx, func(ctx context.Context) (kadm.TopicDetails, error) {
			return adm.ListTopics(ctx) // internal topics excluded, as Java's exclude.internal.topics
		})
	} else {
		td, err = kadmin.Await(mctx, func(ctx context.Context) (kadm.TopicDetails, error) {
			return adm.ListTopics(ctx, spec.Topics...)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("describe topics: %w", err)
	}
	parts := map[string][]int32{}
	var missing []string
	for _, d := range td.Sorted() {
		if spec.Regex != nil && !spec.Regex.MatchString(d.Topic) {
			continue
		}
		if errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			missing = append(missing, d.Topic)
			continue
		}
		if d.Err != nil {
			return nil, fmt.Errorf("describe topic %q: %w", d.Topic, d.Err)
		}
		for _, p := range d.Partitions.Sorted() {
			parts[d.Topic] = append(parts[d.Topic], p.Partition)
		}
	}
	if spec.Regex == nil {
		for _, t := range spec.Topics {
			if _, ok := td[t]; !ok && !contains(missing, t) {
				missing = append(missing, t)
			}
		}
	}
	switch {
	case len(missing) == 1:
		return nil, userr.Errorf("topic %q does not exist: check the name, or create it first (for example with kbench producer-perf-test --partitions N)", missing[0])
	case len(missing) > 1:
		sort.Strings(missing)
		return nil, userr.Errorf("topics %s do not exist: check the names, or create them first", strings.Join(missing, ", "))
	case spec.Regex != nil && len(parts) == 0:
		return nil, userr.Errorf("no topic matches --include %q (internal topics are never included)", strings.TrimSuffix(strings.TrimPrefix(spec.Regex.String(), "^(?:"), ")$"))
	}
	return parts, nil
}

// startOffsets lists where directly assigned partitions start: their log
// start, or their end with latest.
func startOffsets(ctx context.Context, adm *kadm.Client, parts map[string][]int32, latest bool) (kadm.ListedOffsets, error) {
	topics := make([]string, 0, len(parts))
	for t := range parts {
		topics = append(topics, t)
	}
	offs, err := listOffsets(ctx, adm, latest, topics...)
	if err != nil {
		what := "start"
		if latest {
			what = "end"
		}
		return nil, fmt.Errorf("list %s offsets of %s: %w", what, strings.Join(topics, ", "), err)
	}
	return offs, nil
}

// listOffsets lists the topics' start or end offsets, retrying retriable
// errors within adminTimeout: a topic created a moment ago is not yet
// hosted by its leader.
func listOffsets(ctx context.Context, adm *kadm.Client, end bool, topics ...string) (kadm.ListedOffsets, error) {
	lctx, cancel := context.WithTimeout(ctx, adminTimeout)
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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
