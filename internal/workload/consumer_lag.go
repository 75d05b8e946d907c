package workload

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kadmin"
)

// positions holds one client's next offset to consume per partition. The
// poll loop stores into the atomics; the lock only guards the map, which
// changes when a partition is first fetched.
type positions struct {
	mu sync.Mutex
	m  map[topicPartition]*atomic.Int64
}

func (p *positions) register(tp topicPartition) *atomic.Int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.m[tp]
	if !ok {
		v = new(atomic.Int64)
		p.m[tp] = v
	}
	return v
}

// snapshot adds this client's positions to out, keeping the larger
// position when a partition moved between clients.
func (p *positions) snapshot(out map[topicPartition]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for tp, v := range p.m {
		out[tp] = max(out[tp], v.Load())
	}
}

// lagSampler asks for the partitions' end offsets once per interval and
// compares them with the consumed positions, on its own goroutine so that
// neither the poll loops nor the progress lines wait for the broker.
type lagSampler struct {
	cr      *ConsumerRun
	adm     *kadm.Client
	topics  []string
	starts  kadm.ListedOffsets // log starts, for partitions not yet fetched
	reset   string             // a share group's share.auto.offset.reset (shareReset)
	samples []LagSample        // read after run returns
}

func newLagSampler(r *ConsumerRun, parts map[string][]int32) *lagSampler {
	s := &lagSampler{cr: r, adm: kadm.NewClient(r.admin)}
	for t := range parts {
		s.topics = append(s.topics, t)
	}
	sort.Strings(s.topics)
	return s
}

func (s *lagSampler) run(ctx context.Context) {
	t := time.NewTicker(s.cr.spec.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sample(ctx)
		}
	}
}

// sample records the lag now. A failed request skips the sample: lag is
// reported where it could be measured, never guessed.
//
// A distributed worker's slice (ConsumerSpec.Slice) counts only the
// partitions its clients own: the others' belong to other workers, and
// counted from their log start they made every worker report the group's
// whole backlog as its lag. The slice holding the workload's client 0
// (worker 0's) records the group's lag too, which the merge keeps: its own
// partitions at its read positions, the others' at the group's committed
// offsets. Its live lag (OnLag) stays its own.
func (s *lagSampler) sample(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, min(s.cr.spec.Interval, adminTimeout))
	defer cancel()
	if s.cr.spec.Share != nil {
		s.sampleShare(sctx)
		return
	}
	// Awaited: a paused broker holds franz-go's request past its context,
	// and the run's end with it.
	ends, err := kadmin.Await(sctx, func(ctx context.Context) (kadm.ListedOffsets, error) {
		return s.adm.ListEndOffsets(ctx, s.topics...)
	})
	if err != nil {
		return
	}
	pos := map[topicPartition]int64{}
	for _, c := range s.cr.clients {
		c.positions.snapshot(pos)
	}
	sliced := s.cr.spec.Slice.All > 0
	var own map[topicPartition]bool
	if sliced {
		own = s.cr.owned()
	}
	inGroup := sliced && s.cr.spec.Group != ""
	groupWide := inGroup && s.cr.spec.Slice.First == 0
	var committed kadm.OffsetResponses
	if inGroup {
		// Where the group stands: a partition this worker owns but has
		// fetched nothing from since it was assigned (a rebalance gave it
		// a partition another member had read) starts there.
		committed, err = kadmin.Await(sctx, func(ctx context.Context) (kadm.OffsetResponses, error) {
			return s.adm.FetchOffsets(ctx, s.cr.spec.Group)
		})
		if err != nil {
			return
		}
	}
	var lag, group int64
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			return
		}
		tp := topicPartition{o.Topic, o.Partition}
		mine := !sliced || own[tp]
		if !mine && !groupWide {
			return
		}
		p, ok := pos[tp]
		if !mine {
			ok = false // another worker's: its position is not this one's
		}
		if c, found := committed.Lookup(o.Topic, o.Partition); found && c.Err == nil && c.At >= 0 && (!ok || c.At > p) {
			p, ok = c.At, true
		}
		if !ok {
			// Not fetched (or committed) yet: it starts at its log start,
			// or at its end when consuming from the latest record (no lag).
			if s.cr.spec.Latest {
				return
			}
			p = s.logStart(sctx, o.Topic, o.Partition)
		}
		if mine {
			lag += max(o.Offset-p, 0)
		}
		group += max(o.Offset-p, 0)
	})
	if !groupWide {
		group = lag
	}
	s.add(lag, group)
}

// add records a sample: live is this run's own lag (OnLag), recorded the
// one its result keeps.
func (s *lagSampler) add(live, recorded int64) {
	at := time.Since(s.cr.start)
	s.samples = appendBounded(s.samples, LagSample{Elapsed: at, Records: recorded}, mergeLag)
	if s.cr.spec.OnLag != nil {
		s.cr.spec.OnLag(LagSample{Elapsed: at, Records: live})
	}
}

// sampleShare records a share group's lag: per partition, the records
// its share-partition has not settled. The broker counts them where the
// share-partition has started (Kafka 4.2's lag in
// DescribeShareGroupOffsets; the end offset less its start offset before
// 4.2); where it has not (no member has fetched it yet: start offset -1)
// the group will start at its share.auto.offset.reset: the log's start
// for earliest, so every record is unread, its end for latest. The lag
// was the broker's field alone, -1 and so 0 for a share-partition not
// started: a drop-in run with 20,000 records waiting said lag 0 until its
// members first fetched. A sample that cannot be measured is skipped.
func (s *lagSampler) sampleShare(ctx context.Context) {
	group := s.cr.spec.Group
	ends, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.ListedOffsets, error) {
		return s.adm.ListEndOffsets(ctx, s.topics...)
	})
	if err != nil {
		return
	}
	described, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.DescribedShareGroupsOffsets, error) {
		return s.adm.DescribeShareGroupOffsets(ctx, group)
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
			switch s.shareReset(ctx) {
			case "earliest":
				lag += max(end.Offset-s.logStart(ctx, end.Topic, end.Partition), 0)
			case "latest":
			default: // by_duration, or not known: where it starts is not known
				measured = false
			}
		}
	})
	if measured {
		s.add(lag, lag)
		s.shareStalled(ctx, lag)
	}
}

// shareStalled tells OnStall when records wait unread and no member
// settled one for an interval, with what holds them as far as kbench can
// see: the group's coordinator not answering, members without
// partitions (the coordinator assigns them at a member's next heartbeat,
// 5 s apart by default: a new group's first records come about 5 s after
// it joined), and the last connection a member could not open. A leader
// killed under a share group showed nothing for 9 to 13 s: "waiting for
// the first record", lag 0.
func (s *lagSampler) shareStalled(ctx context.Context, lag int64) {
	spec := s.cr.spec
	quiet := time.Since(time.Unix(0, s.cr.lastRecv.Load()))
	if spec.OnStall == nil || lag == 0 || quiet < spec.Interval {
		return
	}
	st := Stall{For: quiet, Outstanding: lag, Reader: true}
	described, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.DescribedShareGroups, error) {
		return s.adm.DescribeShareGroups(ctx, spec.Group)
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
	for _, c := range s.cr.clients {
		if e := c.conn.last(); e != "" {
			st.LastError = e
		}
	}
	spec.OnStall(st)
}

// shareReset is the group's share.auto.offset.reset, asked once per run
// (Kafka's default, latest, when the group has none); "" when it could
// not be asked.
func (s *lagSampler) shareReset(ctx context.Context) string {
	if s.reset != "" {
		return s.reset
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, s.cr.spec.Group
	res.ConfigNames = []string{"share.auto.offset.reset"}
	req.Resources = append(req.Resources, res)
	resp, err := kadmin.Await(ctx, func(ctx context.Context) (*kmsg.DescribeConfigsResponse, error) {
		return req.RequestWith(ctx, s.cr.admin)
	})
	if err != nil || len(resp.Resources) != 1 || resp.Resources[0].ErrorCode != 0 {
		return ""
	}
	s.reset = "latest"
	for _, c := range resp.Resources[0].Configs {
		if c.Name == "share.auto.offset.reset" && c.Value != nil && *c.Value != "" {
			s.reset = *c.Value
		}
	}
	return s.reset
}

// logStart returns a partition's log start offset, listed once per run.
func (s *lagSampler) logStart(ctx context.Context, topic string, partition int32) int64 {
	if s.starts == nil {
		offs, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.ListedOffsets, error) {
			return s.adm.ListStartOffsets(ctx, s.topics...)
		})
		if err != nil {
			return 0
		}
		s.starts = offs
	}
	if o, ok := s.starts.Lookup(topic, partition); ok && o.Err == nil {
		return o.Offset
	}
	return 0
}

// owned are the partitions this run's clients own now: those assigned by
// their group, or dealt to them.
func (r *ConsumerRun) owned() map[topicPartition]bool {
	out := map[topicPartition]bool{}
	for _, c := range r.clients {
		if c.group != nil {
			c.group.ownedInto(out)
		}
		for _, tp := range c.dealt {
			out[tp] = true
		}
	}
	return out
}
