package timeline

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kadmin"
)

// A broker cut off from the controllers while clients still reach it
// (a network partition) keeps answering metadata from its last view: it
// still names itself leader, at the old epoch, long after the others
// elected a new one. So the timeline asks every broker and keeps, per
// partition, the answer with the highest leader epoch: the cluster's
// newest word.

// Bounds of asking one broker: a broker that does not answer within
// brokerAskTimeout (paused, or behind a slow link) is left out for
// brokerSkipFor, so a poll every 50 ms is not held up by it each time.
const (
	brokerAskTimeout = 200 * time.Millisecond
	brokerSkipFor    = 2 * time.Second
)

// slowBrokers remembers which brokers did not answer lately.
type slowBrokers struct {
	mu    sync.Mutex
	until map[int32]time.Time
}

func (s *slowBrokers) skip(id int32, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return now.Before(s.until[id])
}

func (s *slowBrokers) mark(id int32, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.until == nil {
		s.until = map[int32]time.Time{}
	}
	s.until[id] = now.Add(brokerSkipFor)
}

// freshest asks each broker m lists for topics' metadata and merges the
// newer leaders into m.
func (v *clientView) freshest(ctx context.Context, m *kadm.Metadata, topics []string) {
	var reqTopics []kmsg.MetadataRequestTopic
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		reqTopics = append(reqTopics, rt)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, b := range m.Brokers {
		if v.slow.skip(b.NodeID, time.Now()) {
			continue
		}
		wg.Add(1)
		go func(id int32) {
			defer wg.Done()
			bctx, cancel := context.WithTimeout(ctx, brokerAskTimeout)
			defer cancel()
			// One request per broker: franz-go sets a request's version for
			// the broker it goes to, so a shared request is written by one
			// goroutine while another encodes it (a data race), and a
			// broker of another version could be sent the wrong encoding.
			// The topics are only read, so they are shared.
			req := kmsg.NewPtrMetadataRequest()
			req.Topics = reqTopics
			resp, err := kadmin.Await(bctx, func(ctx context.Context) (kmsg.Response, error) {
				return v.cl.Broker(int(id)).Request(ctx, req)
			})
			if err != nil {
				v.slow.mark(id, time.Now())
				return
			}
			if mr, ok := resp.(*kmsg.MetadataResponse); ok {
				mu.Lock()
				mergeNewer(m, mr)
				mu.Unlock()
			}
		}(b.NodeID)
	}
	wg.Wait()
}

// mergeNewer replaces each partition of m for which resp names a higher
// leader epoch with resp's leader, replicas and ISR.
func mergeNewer(m *kadm.Metadata, resp *kmsg.MetadataResponse) {
	for _, t := range resp.Topics {
		if t.Topic == nil || t.ErrorCode != 0 {
			continue
		}
		td, ok := m.Topics[*t.Topic]
		if !ok {
			continue
		}
		for _, p := range t.Partitions {
			cur, ok := td.Partitions[p.Partition]
			if !ok || p.LeaderEpoch <= cur.LeaderEpoch {
				continue
			}
			cur.Leader, cur.LeaderEpoch = p.Leader, p.LeaderEpoch
			cur.Replicas, cur.ISR, cur.OfflineReplicas = p.Replicas, p.ISR, p.OfflineReplicas
			td.Partitions[p.Partition] = cur
		}
	}
}
