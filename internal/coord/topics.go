package coord

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/userr"
)

// resultMaxBytes bounds one result slice on the results topic (its
// interval series and histograms: about 1 MB per workload-hour).
const resultMaxBytes = 32 << 20

// createTopics creates the run's topics unless they exist: the control
// topic's two partitions (broadcast, and worker 0's), the results topic's
// one (one order for every reader), the broker's append time on every
// record (the reference clock), room for large result slices.
func createTopics(ctx context.Context, opts []kgo.Opt, control, results string, replication int16) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("coordination admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if replication <= 0 {
		// Three copies where the cluster has them: a fault on one broker
		// must not silence the run's coordination. The cluster's default
		// (often 1) when its brokers cannot be counted.
		if md, err := adm.BrokerMetadata(ctx); err == nil && len(md.Brokers) > 0 {
			replication = int16(min(3, len(md.Brokers)))
		}
	}
	maxBytes := strconv.Itoa(resultMaxBytes + 1<<20)
	appendTime := "LogAppendTime"
	for _, t := range []struct {
		name       string
		partitions int32
		configs    map[string]*string
	}{
		{control, controlPartitions, map[string]*string{"message.timestamp.type": &appendTime}},
		{results, 1, map[string]*string{"message.timestamp.type": &appendTime, "max.message.bytes": &maxBytes}},
	} {
		resp, err := adm.CreateTopic(ctx, t.partitions, replication, t.configs, t.name)
		if err == nil {
			err = resp.Err
		}
		if errors.Is(err, kerr.TopicAlreadyExists) {
			err = checkPartitions(ctx, adm, t.name, t.partitions)
		}
		if err != nil {
			return fmt.Errorf("create the run's topic %s: %w", t.name, err)
		}
	}
	return nil
}

// checkPartitions refuses a run's topic that exists with fewer partitions
// than this kbench writes to: one an earlier kbench made (its control
// topic had one partition), or a broker's auto-creation.
func checkPartitions(ctx context.Context, adm *kadm.Client, topic string, want int32) error {
	details, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("look up %s: %w", topic, err)
	}
	d, ok := details[topic]
	if !ok || d.Err != nil {
		return nil // created a moment ago by another worker; its creator checked it
	}
	if got := int32(len(d.Partitions)); got < want {
		return userr.Errorf("the run's topic %s exists with %d partition(s), and this kbench needs %d: it is another kbench's run or a topic the broker created by itself; give this run a new --run-id, or delete the topic", topic, got, want)
	}
	return nil
}

// endOffset is a one-partition topic's end offset now, asked with a
// client of its own (from a machine that is not a worker).
func endOffset(ctx context.Context, opts []kgo.Opt, topic string) (int64, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	return endOffsetOf(ctx, cl, topic, 0) // a run that ended: its topics settled long ago
}

// endOffsetOf is endOffset asked with cl: partition 0's, the broadcast
// partition of a control topic. A topic just created may be
// unknown to its leader for a moment (a fresh run's topics on a cluster of
// several brokers): asked again for up to settle.
func endOffsetOf(ctx context.Context, cl *kgo.Client, topic string, settle time.Duration) (int64, error) {
	deadline := time.Now().Add(settle)
	for {
		end, err := endOffsetOnce(ctx, cl, topic)
		settling := errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.LeaderNotAvailable)
		if err == nil || !settling || time.Now().After(deadline) {
			return end, err
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// topicSettle bounds the wait for a new topic's leader to know it.
const topicSettle = 30 * time.Second

func endOffsetOnce(ctx context.Context, cl *kgo.Client, topic string) (int64, error) {
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("read the end of %s: %w", topic, err)
	}
	if err := ends.Error(); err != nil {
		return 0, fmt.Errorf("read the end of %s: %w", topic, err)
	}
	o, ok := ends.Lookup(topic, 0)
	if !ok {
		return 0, fmt.Errorf("read the end of %s: %w", topic, kerr.UnknownTopicOrPartition)
	}
	if o.Err != nil {
		return 0, fmt.Errorf("read the end of %s: %w", topic, o.Err)
	}
	return o.Offset, nil
}

// topicExists asks whether topic exists through a metadata request that
// never creates it: the client's own requests (a fetch, a list of offsets)
// ask for auto-creation when its options allow it (the Java consumer's
// allow.auto.create.topics=true), and a broker with Kafka's default
// auto.create.topics.enable would create a run's topic that a look for it
// only meant to find.
func topicExists(ctx context.Context, cl *kgo.Client, topic string) (bool, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return false, fmt.Errorf("look for %s: %w", topic, err)
	}
	for _, rt := range resp.Topics {
		if rt.Topic == nil || *rt.Topic != topic {
			continue
		}
		switch err := kerr.ErrorForCode(rt.ErrorCode); {
		case err == nil:
			return true, nil
		case errors.Is(err, kerr.UnknownTopicOrPartition):
			return false, nil
		default:
			return false, fmt.Errorf("look for %s: %w", topic, err)
		}
	}
	return false, nil
}

// Clean deletes the run's two topics.
func Clean(ctx context.Context, opts []kgo.Opt, runID string) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	control, results := Topics(runID)
	resp, err := kadm.NewClient(cl).DeleteTopics(ctx, control, results)
	if err != nil {
		return fmt.Errorf("delete the run's topics: %w", err)
	}
	for _, r := range resp {
		if r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("delete %s: %w", r.Topic, r.Err)
		}
	}
	return nil
}
