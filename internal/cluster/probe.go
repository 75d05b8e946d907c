package cluster

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// probe asks one broker, and only that one, which brokers it sees. Asking
// each broker itself matters: a client's metadata request may be answered
// by any broker, or from the client's cache (kadm.BrokerMetadata is), so a
// dead or lagging broker would go unnoticed.
type probe struct{ cl *kgo.Client }

func newProbe(addr string, opts ...kgo.Opt) (*probe, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
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

// Coordinator types of FindCoordinator.
const (
	groupCoordinator int8 = 0
	txnCoordinator   int8 = 1
)

// coordinator asks for a coordinator of the given type and returns nil once
// one is available. The first such request makes the brokers create the
// internal topic behind it (__consumer_offsets, __transaction_state); until
// it exists they answer COORDINATOR_NOT_AVAILABLE.
func (p *probe) coordinator(ctx context.Context, typ int8) error {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = typ
	req.CoordinatorKey = "kbench-ready"            // v0-v3
	req.CoordinatorKeys = []string{"kbench-ready"} // v4+
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return err
	}
	for _, c := range resp.Coordinators {
		if err := kerr.ErrorForCode(c.ErrorCode); err != nil {
			return err
		}
	}
	return nil
}

// probeOpts are the probes' client options: on a network-faults cluster
// they dial past the proxies (DirectDial), so that readiness and status
// see the brokers whatever faults the paths carry, and resolve the nodes'
// host names, which only the nodes' own hosts files know.
func (c *Cluster) probeOpts() []kgo.Opt {
	if c.network() == nil {
		return nil
	}
	return []kgo.Opt{kgo.Dialer(c.DirectDial)}
}
