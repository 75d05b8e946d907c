package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicID is the topic's id as the cluster reports it (Kafka gives a topic
// created again a new one), and whether the topic exists: a verified run
// records it at its start and compares at its end, so that a topic another
// run (or someone by hand) deleted and created again under it is said as
// such, not read back as records lost. Its metadata request never creates
// the topic.
func TopicID(ctx context.Context, opts []kgo.Opt, topic string) (id [16]byte, exists bool, err error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return id, false, fmt.Errorf("verify: %w", err)
	}
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(mctx, cl)
	if err != nil {
		return id, false, fmt.Errorf("verify: describe topic %s: %w", topic, err)
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return id, false, nil
			}
			return id, false, fmt.Errorf("verify: describe topic %s: %w", topic, err)
		}
		return t.TopicID, true, nil
	}
	return id, false, nil
}

// Replaced says, from the topic's id at the run's start (zero: unknown)
// and now, why its records cannot be read back ("" when they can).
func Replaced(topic string, before, now [16]byte, exists bool) string {
	switch {
	case before == [16]byte{}:
		return ""
	case !exists:
		return fmt.Sprintf("topic %s no longer exists: it was deleted while the run wrote it (another run, or by hand), so its records cannot be checked", topic)
	case now != before:
		return fmt.Sprintf("topic %s was deleted and created again while the run wrote it (another run using the same topic, or by hand), so its records cannot be checked: what it holds now is not what the run wrote", topic)
	}
	return ""
}
