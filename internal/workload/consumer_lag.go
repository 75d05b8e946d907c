package workload

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

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
	var lag int64
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			return
		}
		p, ok := pos[topicPartition{o.Topic, o.Partition}]
		if !ok {
			// Not fetched yet: it starts at its log start, or at its end
			// when consuming from the latest record (no lag).
			if s.cr.spec.Latest {
				return
			}
			p = s.logStart(sctx, o.Topic, o.Partition)
		}
		lag += max(o.Offset-p, 0)
	})
	s.add(lag)
}

func (s *lagSampler) add(lag int64) {
	sample := LagSample{Elapsed: time.Since(s.cr.start), Records: lag}
	s.samples = appendBounded(s.samples, sample, mergeLag)
	if s.cr.spec.OnLag != nil {
		s.cr.spec.OnLag(sample)
	}
}

// sampleShare records a share group's lag as the broker counts it (Kafka
// 4.2's share-group lag: records after the group's start offset not yet
// acknowledged).
func (s *lagSampler) sampleShare(ctx context.Context) {
	group := s.cr.spec.Group
	described, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.DescribedShareGroupsOffsets, error) {
		return s.adm.DescribeShareGroupOffsets(ctx, group)
	})
	if err != nil {
		return
	}
	d, ok := described[group]
	if !ok || d.Err != nil {
		return
	}
	var lag int64
	for _, ps := range d.Offsets {
		for _, o := range ps {
			if o.Err == nil && o.Lag > 0 {
				lag += o.Lag
			}
		}
	}
	s.add(lag)
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
