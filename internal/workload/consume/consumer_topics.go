package consume

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload/engine"
)

// ResolveTopics returns the partitions of the topics a spec consumes. A
// topic that does not exist, or a regex that matches none, is the user's
// error, reported at once: the Apache tool would instead wait out its
// timeout and print nothing useful. The check creates nothing: its
// metadata request does not allow auto-creation whatever the consumer's
// allow.auto.create.topics says (a broker that auto-creates would
// otherwise create the topic it then reports missing).
func ResolveTopics(ctx context.Context, admin *kgo.Client, spec ConsumerSpec) (map[string][]int32, error) {
	mctx, cancel := context.WithTimeout(ctx, engine.AdminTimeout)
	defer cancel()
	var names []string // nil: every topic, for a regex
	if spec.Regex == nil {
		names = spec.Topics
	}
	// Awaited: a paused broker holds franz-go's request past its context.
	td, err := kadmin.Await(mctx, func(ctx context.Context) (kadm.TopicDetails, error) {
		return describeTopics(ctx, admin, names)
	})
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

// describeTopics is kadm's ListTopics (internal topics left out, as
// Java's exclude.internal.topics) through a metadata request that never
// creates a topic: names nil asks for every topic.
func describeTopics(ctx context.Context, cl *kgo.Client, names []string) (kadm.TopicDetails, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	if names != nil {
		req.Topics = []kmsg.MetadataRequestTopic{}
	}
	for _, n := range names {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	td := kadm.TopicDetails{}
	for _, t := range resp.Topics {
		if t.Topic == nil || t.IsInternal {
			continue
		}
		d := kadm.TopicDetail{Topic: *t.Topic, ID: t.TopicID, IsInternal: t.IsInternal, Partitions: kadm.PartitionDetails{}}
		d.Err = kerr.ErrorForCode(t.ErrorCode)
		for _, p := range t.Partitions {
			d.Partitions[p.Partition] = kadm.PartitionDetail{Topic: *t.Topic, Partition: p.Partition, Leader: p.Leader,
				LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR, OfflineReplicas: p.OfflineReplicas,
				Err: kerr.ErrorForCode(p.ErrorCode)}
		}
		td[d.Topic] = d
	}
	return td, nil
}

// startOffsets lists where directly assigned partitions start: their log
// start, or their end with latest.
func startOffsets(ctx context.Context, adm *kadm.Client, parts map[string][]int32, latest bool) (kadm.ListedOffsets, error) {
	topics := make([]string, 0, len(parts))
	for t := range parts {
		topics = append(topics, t)
	}
	offs, err := engine.ListOffsets(ctx, adm, latest, topics...)
	if err != nil {
		what := "start"
		if latest {
			what = "end"
		}
		return nil, fmt.Errorf("list %s offsets of %s: %w", what, strings.Join(topics, ", "), err)
	}
	return offs, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
