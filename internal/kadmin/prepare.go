package kadmin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/userr"
)

// Existing says what PrepareTopic does with a topic that already exists.
type Existing string

const (
	// Recreate deletes the topic and creates it again, so every repeat
	// starts from an empty log (the default of plans).
	Recreate Existing = "recreate"
	// Reuse keeps the topic and its data; it is created when missing.
	Reuse Existing = "reuse"
	// Fail refuses to run on a topic that exists.
	Fail Existing = "fail"
)

// recreateTimeout bounds deleting a topic and creating it again: a KRaft
// controller removes a 1000-partition topic in a few seconds.
const recreateTimeout = 60 * time.Second

// PrepareTopic makes the topic of spec ready for a run according to
// existing, and returns it as the cluster reports it. spec.Partitions must
// be set for Recreate and Fail, which always create the topic.
func PrepareTopic(ctx context.Context, opts []kgo.Opt, spec TopicSpec, existing Existing) (TopicInfo, error) {
	if existing == Reuse || existing == "" && spec.Partitions == 0 {
		return EnsureTopic(ctx, opts, spec)
	}
	if spec.Partitions <= 0 {
		return TopicInfo{}, fmt.Errorf("topic %q: %s needs a partition count", spec.Name, existing)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return TopicInfo{}, fmt.Errorf("create admin client: %w", err)
	}
	defer cl.Close()
	if err := Ping(ctx, cl); err != nil {
		return TopicInfo{}, err
	}
	adm := kadm.NewClient(cl)
	if existing == Fail {
		if _, err := describe(ctx, cl, spec.Name); !errors.Is(err, kerr.UnknownTopicOrPartition) {
			return TopicInfo{}, userr.Errorf("topic %q already exists and the plan says existing: fail; delete it, or set existing: reuse or recreate", spec.Name)
		}
	} else if err := deleteTopic(ctx, adm, cl, spec.Name); err != nil {
		// Deleted whether or not a broker's metadata lists it: the
		// controller knows, a lagging broker's cache may not.
		return TopicInfo{}, err
	}
	if err := createAfterDelete(ctx, adm, spec); err != nil {
		return TopicInfo{}, collided(ctx, cl, spec.Name, err)
	}
	info, err := waitForLeaders(ctx, cl, spec.Name, topicTimeout)
	if err != nil {
		return TopicInfo{}, fmt.Errorf("topic %q: wait for partition leaders: %w", spec.Name, err)
	}
	// Clients ask any broker for metadata: each must know the new topic,
	// or a consumer starting now is told it does not exist.
	if err := waitOnEveryBroker(ctx, cl, spec.Name, info.Partitions, topicTimeout); err != nil {
		return TopicInfo{}, err
	}
	info.Created = true
	return info, nil
}

// waitOnEveryBroker waits until every broker's metadata shows the topic
// with its partitions and their leaders.
func waitOnEveryBroker(ctx context.Context, cl *kgo.Client, topic string, partitions int, wait time.Duration) error {
	req := kmsg.NewPtrMetadataRequest()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("topic %q: list brokers: %w", topic, err)
	}
	deadline := time.Now().Add(wait)
	for _, b := range resp.Brokers {
		for {
			info, err := describe(ctx, brokerRequester{cl.Broker(int(b.NodeID))}, topic)
			if err == nil && info.Partitions == partitions {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("topic %q: broker %d does not show it with its %d partitions' leaders %s after it was created (%v); the broker may lag behind the controller: check its log", topic, b.NodeID, partitions, wait, err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// brokerRequester sends requests to one broker.
type brokerRequester struct{ b *kgo.Broker }

func (r brokerRequester) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	return r.b.Request(ctx, req)
}

// deleteTopic deletes the topic and waits until metadata no longer shows it.
func deleteTopic(ctx context.Context, adm *kadm.Client, cl *kgo.Client, name string) error {
	dctx, cancel := context.WithTimeout(ctx, recreateTimeout)
	defer cancel()
	resp, err := adm.DeleteTopic(dctx, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("delete topic %q: %w", name, err)
	}
	for {
		_, err := describe(dctx, cl, name)
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return nil
		}
		select {
		case <-dctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("delete topic %q: still listed after %s", name, recreateTimeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createAfterDelete creates the topic, retrying while the controller still
// finishes deleting an earlier topic of the same name.
func createAfterDelete(ctx context.Context, adm *kadm.Client, spec TopicSpec) error {
	cctx, cancel := context.WithTimeout(ctx, recreateTimeout)
	defer cancel()
	rf := spec.ReplicationFactor
	if rf == 0 {
		rf = -1
	}
	for {
		resp, err := adm.CreateTopic(cctx, spec.Partitions, rf, spec.Configs, spec.Name)
		if err == nil {
			err = resp.Err
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("create topic %q with %d partitions: %w", spec.Name, spec.Partitions, err)
		}
		select {
		case <-cctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("create topic %q: the broker still reports it as existing %s after deleting it", spec.Name, recreateTimeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
