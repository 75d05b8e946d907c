package timeline

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kadmin"
)

// view is the cluster as the timeline sees it, from the client's side, as
// a producer would: its metadata and its active controller. Every call
// returns when its context ends, whatever a paused broker holds.
type view interface {
	metadata(ctx context.Context, topics ...string) (kadm.Metadata, error)
	// quorumLeader is the active KRaft controller, -1 when the cluster
	// cannot say (not KRaft, or an older broker).
	quorumLeader(ctx context.Context) (int32, error)
	close()
}

// Bounds of one look at the cluster.
const (
	metadataTimeout = time.Second
	quorumTimeout   = 5 * time.Second
)

// clientView asks the cluster through a franz-go client.
type clientView struct {
	cl   *kgo.Client
	adm  *kadm.Client
	slow slowBrokers
}

func newClientView(opts []kgo.Opt) (*clientView, error) {
	// The client answers metadata requests from a cache younger than
	// MetadataMinAge (5 s by default): polling every 50 ms needs fresh
	// answers.
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...), kgo.ClientID("kbench-faults"), kgo.MetadataMinAge(10*time.Millisecond))...)
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	return &clientView{cl: cl, adm: kadm.NewClient(cl)}, nil
}

// metadata asks for topics' metadata, at most metadataTimeout, with each
// partition's newest leader any broker knows (freshest). franz-go
// notices a cancelled context only between the steps of a request (a
// dial to a paused broker holds it 10 s): kadmin.Await returns at once.
func (v *clientView) metadata(ctx context.Context, topics ...string) (kadm.Metadata, error) {
	mctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	m, err := kadmin.Await(mctx, func(ctx context.Context) (kadm.Metadata, error) { return v.adm.Metadata(ctx, topics...) })
	if err != nil {
		return m, err
	}
	v.freshest(mctx, &m, topics)
	return m, nil
}

func (v *clientView) quorumLeader(ctx context.Context) (int32, error) {
	qctx, cancel := context.WithTimeout(ctx, quorumTimeout)
	defer cancel()
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	resp, err := kadmin.Await(qctx, func(ctx context.Context) (*kmsg.DescribeQuorumResponse, error) { return req.RequestWith(ctx, v.cl) })
	if err != nil {
		return -1, err
	}
	if len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
		if p := resp.Topics[0].Partitions[0]; p.ErrorCode == 0 && p.LeaderID >= 0 {
			return p.LeaderID, nil
		}
	}
	return -1, nil
}

func (v *clientView) close() { v.cl.Close() }
