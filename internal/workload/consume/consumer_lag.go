package consume

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// positions holds one client's next offset to consume per partition. The
// poll loop stores into the atomics; the lock only guards the map, which
// changes when a partition is first fetched.
type positions struct {
	mu sync.Mutex
	m  map[engine.TopicPartition]*atomic.Int64
}

func (p *positions) register(tp engine.TopicPartition) *atomic.Int64 {
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
func (p *positions) snapshot(out map[engine.TopicPartition]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for tp, v := range p.m {
		out[tp] = max(out[tp], v.Load())
	}
}

// LagSampler asks for the partitions' end offsets once per interval and
// compares them with the consumed positions, on its own goroutine so that
// neither the poll loops nor the progress lines wait for the broker.
type LagSampler struct {
	cr      *ConsumerRun
	adm     *kadm.Client
	topics  []string
	starts  kadm.ListedOffsets  // log starts, for partitions not yet fetched
	samples []measure.LagSample // read after run returns
}

func newLagSampler(r *ConsumerRun, parts map[string][]int32) *LagSampler {
	s := &LagSampler{cr: r, adm: kadm.NewClient(r.admin)}
	for t := range parts {
		s.topics = append(s.topics, t)
	}
	sort.Strings(s.topics)
	return s
}

func (s *LagSampler) run(ctx context.Context) {
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
func (s *LagSampler) sample(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, min(s.cr.spec.Interval, engine.AdminTimeout))
	defer cancel()
	if m := s.cr.members; m != nil {
		m.SampleLag(sctx, s)
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
	pos := map[engine.TopicPartition]int64{}
	for _, c := range s.cr.clients {
		c.positions.snapshot(pos)
	}
	sliced := s.cr.spec.Slice.All > 0
	var own map[engine.TopicPartition]bool
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
		tp := engine.TopicPartition{Topic: o.Topic, Partition: o.Partition}
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
func (s *LagSampler) add(live, recorded int64) {
	at := time.Since(s.cr.start)
	s.samples = engine.AppendBounded(s.samples, measure.LagSample{Elapsed: at, Records: recorded}, engine.MergeLag)
	if s.cr.spec.OnLag != nil {
		s.cr.spec.OnLag(measure.LagSample{Elapsed: at, Records: live})
	}
}

// logStart returns a partition's log start offset, listed once per run.
func (s *LagSampler) logStart(ctx context.Context, topic string, partition int32) int64 {
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
func (r *ConsumerRun) owned() map[engine.TopicPartition]bool {
	out := map[engine.TopicPartition]bool{}
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
