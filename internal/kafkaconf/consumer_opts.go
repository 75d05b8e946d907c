package kafkaconf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kbench/kbench/internal/userr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kgo's default BrokerMaxReadBytes, which must stay at least FetchMaxBytes.
const kgoDefMaxRead = 100 << 20

// Opts returns the client and consumer kgo options for this consumer, not
// the topics or the group: the caller adds kgo.ConsumeTopics (or
// ConsumePartitions) and, with GroupID set, kgo.ConsumerGroup(GroupID).
// Group settings are included either way; kgo ignores them without a group.
func (c *Consumer) Opts() ([]kgo.Opt, error) {
	if errs := c.check(); len(errs) > 0 {
		return nil, userr.New(errors.Join(errs...))
	}
	start, reset, err := c.offsets()
	if err != nil {
		return nil, userr.New(fmt.Errorf("auto.offset.reset=%s: %w", c.AutoOffsetReset, err))
	}
	opts := c.clientOpts(c.clientID(), c.RequestTimeout)
	opts = append(opts,
		kgo.FetchMinBytes(clampInt32(c.FetchMinBytes)),
		kgo.FetchMaxBytes(clampInt32(c.FetchMaxBytes)),
		// kgo fails responses larger than this; a broker may return a batch
		// beyond fetch.max.bytes, hence the doubling kgo's docs advise.
		kgo.BrokerMaxReadBytes(clampInt32(min(max(kgoDefMaxRead, 2*c.FetchMaxBytes), kgoMaxBatch))),
		kgo.FetchMaxWait(max(c.FetchMaxWait, kgoMinFetchWait)),
		kgo.FetchMaxPartitionBytes(clampInt32(c.MaxPartitionFetchBytes)),
		kgo.FetchIsolationLevel(c.isolation()),
		kgo.ConsumeStartOffset(start),
		kgo.ConsumeResetOffset(reset),
		kgo.Balancers(c.balancers()...),
		kgo.SessionTimeout(c.SessionTimeout),
		kgo.HeartbeatInterval(c.HeartbeatInterval),
		kgo.RebalanceTimeout(c.MaxPollInterval),
		kgo.AutoCommitInterval(max(c.AutoCommitInterval, kgoMinCommitInterval)),
	)
	if c.GroupID != "" && !c.EnableAutoCommit {
		opts = append(opts, kgo.DisableAutoCommit()) // kgo rejects it without a group
	}
	if c.GroupInstanceID != "" {
		opts = append(opts, kgo.InstanceID(c.GroupInstanceID))
	}
	if c.GroupProtocol == "consumer" {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if c.ClientRack != "" {
		opts = append(opts, kgo.Rack(c.ClientRack))
	}
	if !c.CheckCRCs {
		opts = append(opts, kgo.DisableFetchCRCValidation())
	}
	if c.AllowAutoCreateTopics {
		opts = append(opts, kgo.AllowAutoTopicCreation())
	}
	return opts, nil
}

// offsets maps auto.offset.reset to where to start without a committed
// offset and where to go on OffsetOutOfRange: Java uses the one setting for
// both.
func (c *Consumer) offsets() (start, reset kgo.Offset, err error) {
	switch r := c.AutoOffsetReset; {
	case r == "earliest":
		return kgo.NewOffset().AtStart(), kgo.NewOffset().AtStart(), nil
	case r == "latest":
		return kgo.NewOffset().AtEnd(), kgo.NewOffset().AtEnd(), nil
	case r == "none":
		return kgo.NewOffset().AtCommitted(), kgo.NoResetOffset(), nil
	case strings.HasPrefix(r, "by_duration:"):
		d, err := parseISODuration(r[len("by_duration:"):])
		if err != nil {
			return start, reset, err
		}
		return kgo.LookbackOffset(d), kgo.LookbackOffset(d), nil
	}
	return start, reset, fmt.Errorf("unknown auto.offset.reset %q", c.AutoOffsetReset)
}

func (c *Consumer) isolation() kgo.IsolationLevel {
	if c.IsolationLevel == "read_committed" {
		return kgo.ReadCommitted()
	}
	return kgo.ReadUncommitted()
}

// balancers is partition.assignment.strategy, or for group.protocol=consumer
// the balancer whose kind kgo sends as the server-side assignor.
func (c *Consumer) balancers() []kgo.GroupBalancer {
	if c.GroupProtocol == "consumer" {
		if c.GroupRemoteAssignor == "range" {
			return []kgo.GroupBalancer{kgo.RangeBalancer()}
		}
		return []kgo.GroupBalancer{kgo.StickyBalancer()} // "uniform", the broker's default
	}
	var out []kgo.GroupBalancer
	for _, a := range c.PartitionAssignmentStrategy {
		switch a {
		case "range":
			out = append(out, kgo.RangeBalancer())
		case "roundrobin":
			out = append(out, kgo.RoundRobinBalancer())
		case "sticky":
			out = append(out, kgo.StickyBalancer())
		case "cooperative-sticky":
			out = append(out, kgo.CooperativeStickyBalancer())
		}
	}
	return out
}
