package share

import (
	"context"
	"errors"
	"fmt"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SampleLag implements Membership: a share group's lag: per partition, the records
// its share-partition has not settled. The broker counts them where the
// share-partition has started (Kafka 4.2's lag in
// DescribeShareGroupOffsets; the end offset less its start offset before
// 4.2); where it has not (no member has fetched it yet: start offset -1)
// the group will start at its share.auto.offset.reset: the log's start
// for earliest, so every record is unread, its end for latest. The lag
// was the broker's field alone, -1 and so 0 for a share-partition not
// started: a drop-in run with 20,000 records waiting said lag 0 until its
// members first fetched. A sample that cannot be measured is skipped.
func (g *shareGroup) SampleLag(ctx context.Context, s *consume.LagSampler) {
	group := g.spec.Group
	ends, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.ListedOffsets, error) {
		return s.Admin().ListEndOffsets(ctx, s.Topics()...)
	})
	if err != nil {
		return
	}
	described, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.DescribedShareGroupsOffsets, error) {
		return s.Admin().DescribeShareGroupOffsets(ctx, group)
	})
	if err != nil {
		return
	}
	d := described[group] // absent: no share-partition has started
	if d.Err != nil && !errors.Is(d.Err, kerr.GroupIDNotFound) {
		return
	}
	var lag int64
	measured := true
	ends.Each(func(end kadm.ListedOffset) {
		if end.Err != nil {
			measured = false
			return
		}
		o, ok := d.Offsets.Lookup(end.Topic, end.Partition)
		switch {
		case ok && o.Err != nil:
			measured = false
		case ok && o.StartOffset >= 0 && o.Lag >= 0:
			lag += o.Lag
		case ok && o.StartOffset >= 0:
			lag += max(end.Offset-o.StartOffset, 0)
		default:
			switch g.shareReset(ctx, s) {
			case "earliest":
				lag += max(end.Offset-s.LogStart(ctx, end.Topic, end.Partition), 0)
			case "latest":
			default: // by_duration, or not known: where it starts is not known
				measured = false
			}
		}
	})
	if measured {
		s.Add(lag)
		g.stalled(ctx, s, lag)
	}
}

// stalled tells OnStall when records wait unread and no member
// settled one for an interval, with what holds them as far as kbench can
// see: the group's coordinator not answering, members without
// partitions (the coordinator assigns them at a member's next heartbeat,
// 5 s apart by default: a new group's first records come about 5 s after
// it joined), and the last connection a member could not open. A leader
// killed under a share group showed nothing for 9 to 13 s: "waiting for
// the first record", lag 0.
func (g *shareGroup) stalled(ctx context.Context, s *consume.LagSampler, lag int64) {
	spec := g.spec
	quiet := s.Quiet()
	if g.share.OnStall == nil || lag == 0 || quiet < spec.Interval {
		return
	}
	st := measure.Stall{For: quiet, Outstanding: lag, Reader: true}
	described, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.DescribedShareGroups, error) {
		return s.Admin().DescribeShareGroups(ctx, spec.Group)
	})
	d, ok := described[spec.Group]
	switch {
	case err == nil && ok && d.Err == nil && len(d.Members) > 0 && len(d.AssignedPartitions()) == 0:
		st.Why = fmt.Sprintf("none of the group's %d member(s) has a partition assigned yet (the coordinator assigns them at a member's next heartbeat)", len(d.Members))
	case err == nil && ok && (d.Err == nil && len(d.Members) == 0 || errors.Is(d.Err, kerr.GroupIDNotFound)):
		st.Why = "no member has joined the share group yet"
	case err == nil && ok && d.Err != nil:
		st.Why = fmt.Sprintf("the share group's coordinator answers %v", d.Err)
	case err != nil && ctx.Err() == nil:
		st.Why = fmt.Sprintf("the share group's coordinator does not answer (%v)", err)
	}
	for _, m := range g.members {
		if e := m.conn.Last(); e != "" {
			st.LastError = e
		}
	}
	g.share.OnStall(st)
}

// shareReset is the group's share.auto.offset.reset, asked once per run
// (Kafka's default, latest, when the group has none); "" when it could
// not be asked.
func (g *shareGroup) shareReset(ctx context.Context, s *consume.LagSampler) string {
	if g.reset != "" {
		return g.reset
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, g.spec.Group
	res.ConfigNames = []string{"share.auto.offset.reset"}
	req.Resources = append(req.Resources, res)
	resp, err := kadmin.Await(ctx, func(ctx context.Context) (*kmsg.DescribeConfigsResponse, error) {
		return req.RequestWith(ctx, s.AdminKgo())
	})
	if err != nil || len(resp.Resources) != 1 || resp.Resources[0].ErrorCode != 0 {
		return ""
	}
	g.reset = "latest"
	for _, c := range resp.Resources[0].Configs {
		if c.Name == "share.auto.offset.reset" && c.Value != nil && *c.Value != "" {
			g.reset = *c.Value
		}
	}
	return g.reset
}
