package cluster

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// probe asks one broker, and only that one, which brokers it sees. Asking
// each broker itself matters: a client's metadata request may be answered
// by any broker, or from the client's cache (kadm.BrokerMetadata is), so a
// dead or lagging broker would go unnoticed.
type probe struct{ cl *kgo.Client }

func newProbe(addr string) (*probe, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return nil, fmt.Errorf("metadata client for %s: %w", addr, err)
	}
	return &probe{cl}, nil
}

func (p *probe) close() { p.cl.Close() }

// brokers returns the ids of the live (registered, unfenced) brokers in
// the broker's metadata.
func (p *probe) brokers(ctx context.Context) (map[int]bool, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{} // none: only brokers
	resp, err := p.cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		return nil, err
	}
	ids := map[int]bool{}
	for _, b := range resp.(*kmsg.MetadataResponse).Brokers {
		ids[int(b.NodeID)] = true
	}
	return ids, nil
}
