// Package kadmin is kbench's administration of a cluster: it checks that the
// cluster answers (Ping) and prepares topics (EnsureTopic, RecreateTopic).
// It imports no other engine package, so the runner and the workload engines
// can both use it.
package kadmin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/userr"
)

// ErrUnreachable means no broker answered within the connect timeout.
var ErrUnreachable = errors.New("cannot reach the Kafka cluster")

// TopicSpec says which topic a workload needs and how to create it.
type TopicSpec struct {
	Name string
	// Partitions > 0 creates a missing topic with this many partitions. At 0
	// a missing topic is left to the broker's auto-creation, as the Apache
	// tools do.
	Partitions        int32
	ReplicationFactor int16 // -1: the broker's default
	Configs           map[string]*string
	// PartitionsFlag and ReplicationFlag name the options the user asked
	// for Partitions and ReplicationFactor with ("--partitions"); when set,
	// an existing topic must have that many, or the run would measure
	// another configuration than the one asked for. Empty: the values only
	// say how to create a missing topic (end-to-end-latency's 1 and 1).
	PartitionsFlag, ReplicationFlag string
}

// TopicInfo is a topic as the cluster reports it.
type TopicInfo struct {
	Name              string
	Partitions        int
	ReplicationFactor int
	Created           bool // kbench or the broker created it for this run
}

// Timeouts bound each step, so a wrong address fails fast instead of hanging.
const (
	ConnectTimeout = 15 * time.Second
	topicTimeout   = 20 * time.Second
	// autoCreateWait bounds the wait for a broker to auto-create a topic; a
	// broker that does it answers within a second or two.
	autoCreateWait = 5 * time.Second
)

// EnsureTopic checks that the cluster answers (within ConnectTimeout) and
// that the topic exists with leaders for every partition, creating it when
// the spec or the broker's auto-creation allows.
func EnsureTopic(ctx context.Context, opts []kgo.Opt, spec TopicSpec) (TopicInfo, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return TopicInfo{}, fmt.Errorf("create admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	if err := Ping(ctx, cl); err != nil {
		return TopicInfo{}, err
	}
	_, err = describe(ctx, cl, spec.Name)
	if !errors.Is(err, kerr.UnknownTopicOrPartition) {
		// It exists (or the cluster failed us): wait out leader elections.
		info, err := waitForLeaders(ctx, cl, spec.Name, topicTimeout)
		if err != nil {
			return info, err
		}
		return info, spec.matches(info)
	}
	existed := false
	if spec.Partitions > 0 {
		existed, err = createTopic(ctx, adm, spec)
	} else {
		err = requestAutoCreate(ctx, cl, spec.Name)
	}
	info := TopicInfo{}
	if err == nil {
		wait := topicTimeout
		if spec.Partitions == 0 {
			wait = autoCreateWait
		}
		info, err = waitForLeaders(ctx, cl, spec.Name, wait)
	}
	if err != nil {
		err = collided(ctx, cl, spec.Name, err)
	}
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return TopicInfo{}, userr.Errorf("topic %q does not exist and the broker did not create it (auto.create.topics.enable=false?): create it first, or pass --partitions N to let kbench create it", spec.Name)
	}
	if err != nil {
		return TopicInfo{}, err
	}
	if existed {
		// Created a moment before by someone else, unknown to this broker
		// until now: it is an existing topic.
		return info, spec.matches(info)
	}
	info.Created = true
	return info, nil
}

// matches checks an existing topic against what the user asked for.
func (spec TopicSpec) matches(info TopicInfo) error {
	mismatch := func(has int, one, many string, want int, flag string) error {
		what := many
		if has == 1 {
			what = one
		}
		return userr.Errorf("topic %q already has %d %s, not the %d %s asks for: delete the topic, use another name, or leave out %s",
			spec.Name, has, what, want, flag, flag)
	}
	if spec.PartitionsFlag != "" && spec.Partitions > 0 && info.Partitions != int(spec.Partitions) {
		return mismatch(info.Partitions, "partition", "partitions", int(spec.Partitions), spec.PartitionsFlag)
	}
	if spec.ReplicationFlag != "" && spec.ReplicationFactor > 0 && info.ReplicationFactor != int(spec.ReplicationFactor) {
		return mismatch(info.ReplicationFactor, "replica per partition", "replicas per partition", int(spec.ReplicationFactor), spec.ReplicationFlag)
	}
	return nil
}

// createTopic creates the topic; existed reports that it was there already.
func createTopic(ctx context.Context, adm *kadm.Client, spec TopicSpec) (existed bool, err error) {
	rf := spec.ReplicationFactor
	if rf == 0 {
		rf = -1
	}
	cctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	_, err = adm.CreateTopic(cctx, spec.Partitions, rf, spec.Configs, spec.Name)
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("create topic %q with %d partitions: %w", spec.Name, spec.Partitions, err)
	}
	return false, nil
}

// collided explains why creating topic failed when an existing topic's
// name differs from it only in '.' and '_': Kafka refuses such a topic
// (their metric names would be the same) with INVALID_TOPIC_EXCEPTION, or,
// when auto-creating, silently. Other errors are returned as they are.
func collided(ctx context.Context, cl kmsg.Requestor, topic string, err error) error {
	if !strings.ContainsAny(topic, "._") || !errors.Is(err, kerr.InvalidTopicException) && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		return err
	}
	mctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	resp, merr := kmsg.NewPtrMetadataRequest().RequestWith(mctx, cl) // every topic
	if merr != nil {
		return err
	}
	key := strings.ReplaceAll(topic, ".", "_")
	for _, t := range resp.Topics {
		if t.Topic != nil && *t.Topic != topic && strings.ReplaceAll(*t.Topic, ".", "_") == key {
			return userr.Errorf("topic %q collides with the existing topic %q: Kafka takes '.' and '_' in topic names for the same character (their metrics would clash) and refuses the second; use another name, or the existing topic", topic, *t.Topic)
		}
	}
	return err
}

// Ping checks that a broker answers a metadata request within ConnectTimeout.
func Ping(ctx context.Context, cl *kgo.Client) error {
	pctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	// franz-go notices the deadline only when a read times out on its own
	// (after the request timeout), so wait for the deadline here: a silent
	// listener must not stretch the bound.
	errc := make(chan error, 1)
	go func() { errc <- cl.Ping(pctx) }()
	var err error
	select {
	case err = <-errc:
	case <-pctx.Done():
		err = fmt.Errorf("no answer: %w", pctx.Err())
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	seeds := strings.Join(cl.OptValue(kgo.SeedBrokers).([]string), ",")
	if errors.As(err, new(*kgo.ErrFirstReadEOF)) && isController(ctx, cl) {
		// franz-go's message asks whether SASL is missing: a controller
		// closes the connection on the metadata request just the same.
		return userr.New(fmt.Errorf("%w at %s: it answers like a KRaft controller listener, not a broker (it serves no metadata): "+
			"use a broker's port in --bootstrap-server or bootstrap.servers ('kbench cluster status' lists them for a local cluster)", ErrUnreachable, seeds))
	}
	if why, ok := explainSecurity(err); ok {
		return userr.New(fmt.Errorf("%w at %s: %s\n(%v)", ErrUnreachable, seeds, why, err))
	}
	return fmt.Errorf("%w at %s within %s: %v (is a broker running there? check --bootstrap-server or bootstrap.servers)", ErrUnreachable, seeds, ConnectTimeout, err)
}

// isController reports whether the listener the client reaches answers
// ApiVersions like a KRaft controller: with the quorum's Vote request and
// without Metadata, which every broker serves.
func isController(ctx context.Context, cl *kgo.Client) bool {
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(actx, cl)
	if err != nil || resp.ErrorCode != 0 {
		return false
	}
	var vote, metadata bool
	for _, k := range resp.ApiKeys {
		switch k.ApiKey {
		case kmsg.Vote.Int16():
			vote = true
		case kmsg.Metadata.Int16():
			metadata = true
		}
	}
	return vote && !metadata
}

// describe returns the topic's details, or an error wrapping
// kerr.UnknownTopicOrPartition when it does not exist. It sends its own
// metadata request: the client may allow auto-creation (the Java producer
// does), and merely looking must not create the topic.
func describe(ctx context.Context, cl kmsg.Requestor, topic string) (TopicInfo, error) {
	dctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	req.AllowAutoTopicCreation = false
	resp, err := req.RequestWith(dctx, cl)
	if err != nil {
		return TopicInfo{}, fmt.Errorf("describe topic %q: %w", topic, err)
	}
	if len(resp.Topics) != 1 {
		return TopicInfo{}, fmt.Errorf("describe topic %q: %d topics in the metadata response", topic, len(resp.Topics))
	}
	td := resp.Topics[0]
	if err := kerr.ErrorForCode(td.ErrorCode); err != nil {
		return TopicInfo{}, fmt.Errorf("describe topic %q: %w", topic, err)
	}
	info := TopicInfo{Name: topic, Partitions: len(td.Partitions)}
	for _, p := range td.Partitions {
		info.ReplicationFactor = max(info.ReplicationFactor, len(p.Replicas))
		if p.Leader < 0 || p.ErrorCode != 0 {
			return info, fmt.Errorf("topic %q partition %d: %w", topic, p.Partition, kerr.LeaderNotAvailable)
		}
	}
	if info.Partitions == 0 {
		return info, fmt.Errorf("topic %q: %w", topic, kerr.LeaderNotAvailable)
	}
	return info, nil
}

// requestAutoCreate asks for the topic's metadata allowing auto-creation,
// which is how the Java producer gets a missing topic created.
func requestAutoCreate(ctx context.Context, cl *kgo.Client, topic string) error {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = true
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	rctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	// The answer does not say whether the broker will create the topic
	// (a KRaft broker answers UNKNOWN_TOPIC_OR_PARTITION either way while
	// the controller works); the caller polls for it.
	if _, err := req.RequestWith(rctx, cl); err != nil {
		return fmt.Errorf("request auto-creation of topic %q: %w", topic, err)
	}
	return nil
}

// waitForLeaders polls until every partition of the topic has a leader,
// for at most wait. It gives up at once on errors other than a missing
// leader or a topic not yet known.
func waitForLeaders(ctx context.Context, cl *kgo.Client, topic string, wait time.Duration) (TopicInfo, error) {
	deadline := time.Now().Add(wait)
	for {
		info, err := describe(ctx, cl, topic)
		retriable := errors.Is(err, kerr.LeaderNotAvailable) || errors.Is(err, kerr.UnknownTopicOrPartition)
		if err == nil || !retriable || time.Now().After(deadline) {
			return info, err
		}
		select {
		case <-ctx.Done():
			return TopicInfo{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
