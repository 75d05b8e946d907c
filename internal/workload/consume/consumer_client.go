package consume

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// Client is one franz-go consumer and what it measured. Fields
// under "poll loop" are written only by its poll goroutine and read after
// the loop ended; the others are safe for the reporter and lag sampler.
// Another kind of group's Member counts through its methods
// (consumer_members.go), from the same poll goroutine.
type Client struct {
	visible *engine.VisibleReader // nil unless ConsumerSpec.Visible
	cr      *ConsumerRun
	id      int
	cl      *kgo.Client
	maxPoll int
	latency bool

	window    measure.Window
	group     *groupTracker           // nil when partitions are assigned directly
	dealt     []engine.TopicPartition // the partitions assigned directly
	member    Member                  // another kind of group's member (ConsumerRun.members); nil otherwise
	rng       *rand.Rand              // processing times (poll loop)
	procAt    time.Time               // the end of the processing done so far (poll loop; spend)
	positions *positions              // nil without ConsumerSpec.Lag

	// poll loop
	hist *measure.Histogram // made on the first latency (latencyHist)
	// fromHeader and fromTimestamp count the records whose latency came
	// from kbench's send-time header and from their timestamp; backlog
	// those sent before the run (not in the latency).
	fromHeader, fromTimestamp, backlog int64
	records                            int64
	bytes                              int64
	// decode is this client's decoder (ConsumerSpec.Decode); decoded and
	// undecodable count its records (poll loop).
	decode               func([]byte) error
	observe              func([]*kgo.Record, int64) // ConsumerSpec.Observe's
	decoded, undecodable int64
	firstDecodeErr       error
	errs                 measure.ErrorCounts
	seenErr              map[string]bool
	posMap               map[engine.TopicPartition]*atomic.Int64 // this loop's cache of positions
	// pollLats are the poll's end-to-end latencies, for the interval's
	// histogram (poll loop).
	pollLats []int64
	// drained are the partitions that returned a record sent after the
	// start (poll loop; consumer_drain.go).
	drained map[engine.TopicPartition]partitionCatchUp
}

// latencyHist is the client's latency histogram, made when the first
// latency is recorded: 188 KB, which most of 1,000 consumers of a few
// partitions never need. Poll loop only.
func (c *Client) latencyHist() *measure.Histogram {
	if c.hist == nil {
		c.hist = measure.NewHistogram()
	}
	return c.hist
}

func newConsumerClient(r *ConsumerRun, i int, parts map[string][]int32, starts kadm.ListedOffsets) (*Client, error) {
	c := &Client{
		cr:      r,
		id:      i,
		maxPoll: r.spec.MaxPollRecords,
		latency: r.spec.Latency,
		seenErr: map[string]bool{},
	}
	if r.spec.Decode != nil {
		c.decode = r.spec.Decode(i)
	}
	if r.spec.Visible != nil {
		// Commits before the scenario's epoch are another repeat's.
		c.visible = &engine.VisibleReader{Clock: r.spec.Visible, Since: r.spec.Epoch}
	}
	if r.spec.Observe != nil {
		c.observe = r.spec.Observe(i)
	}
	if r.spec.Processing != nil {
		seed := r.spec.clientSeed(i)
		c.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	}
	if r.spec.Lag {
		c.positions = &positions{m: map[engine.TopicPartition]*atomic.Int64{}}
		c.posMap = map[engine.TopicPartition]*atomic.Int64{}
	}
	opts := append([]kgo.Opt(nil), r.spec.ClientOpts(i)...)
	if r.spec.Hooks != nil {
		opts = append(opts, kgo.WithHooks(r.spec.Hooks(i)...))
	}
	switch {
	case r.members != nil:
		// Another kind of group: it says how its members join (a share
		// group assigns no partitions a client could wait for, so they
		// are ready at once).
		c.member = r.members.Member(c)
		opts = append(opts, c.member.Options()...)
	case r.spec.Group != "":
		c.group = newGroupTracker(r, i, time.Now())
		opts = append(opts, kgo.ConsumerGroup(r.spec.Group),
			kgo.OnPartitionsAssigned(c.group.onAssigned),
			kgo.OnPartitionsRevoked(c.group.onRevoked),
			kgo.OnPartitionsLost(c.group.onLost))
		if r.spec.Regex != nil {
			opts = append(opts, kgo.ConsumeRegex(), kgo.ConsumeTopics(r.spec.Regex.String()))
		} else {
			opts = append(opts, kgo.ConsumeTopics(r.spec.Topics...))
		}
	default:
		all, at := r.spec.Clients, i
		if sl := r.spec.Slice; sl.All > 0 {
			all, at = sl.All, sl.First+i // a worker's share: dealt among every worker's clients
		}
		dealt := dealPartitions(parts, starts, all, at)
		for t, ps := range dealt {
			for p := range ps {
				c.dealt = append(c.dealt, engine.TopicPartition{Topic: t, Partition: p})
			}
		}
		opts = append(opts, kgo.ConsumePartitions(dealt))
	}
	cl, err := engine.NewClient(opts)
	if err != nil {
		return nil, fmt.Errorf("consumer client %d: %w", i, err)
	}
	c.cl = cl
	if c.group == nil {
		r.assigned()
	}
	return c, nil
}

// dealPartitions deals the partitions to n clients in turn and returns client i's,
// each starting at its listed offset.
func dealPartitions(parts map[string][]int32, starts kadm.ListedOffsets, n, i int) map[string]map[int32]kgo.Offset {
	topics := make([]string, 0, len(parts))
	for t := range parts {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	out := map[string]map[int32]kgo.Offset{}
	k := 0
	for _, t := range topics {
		for _, p := range parts[t] {
			if k%n == i {
				if out[t] == nil {
					out[t] = map[int32]kgo.Offset{}
				}
				off := kgo.NewOffset().AtStart()
				if lo, ok := starts.Lookup(t, p); ok {
					off = kgo.NewOffset().At(lo.Offset)
				}
				out[t][p] = off
			}
			k++
		}
	}
	return out
}

// run polls until ctx ends. It returns an error only for failures that
// retrying cannot fix (authorization); other fetch errors are counted.
func (c *Client) run(ctx context.Context) error {
	handle := c.handle
	if c.member != nil {
		defer c.member.Done()
		handle = c.member.Handle
	}
	for {
		fs := c.cl.PollRecords(ctx, c.maxPoll)
		if ctx.Err() != nil {
			if c.member != nil {
				c.member.Late(fs)
			}
			return nil // the run ended while polling; what came back is past its end
		}
		if err := handle(fs, time.Now()); err != nil {
			return err
		}
	}
}

// handle accounts one poll. now is when the poll returned: the moment the
// application sees the records, so end-to-end latency ends there. It is
// taken once per poll, not per record, to keep the loop cheap.
func (c *Client) handle(fs kgo.Fetches, now time.Time) error {
	n := fs.NumRecords()
	take := 0
	if n > 0 {
		c.cr.lastRecv.Store(now.UnixNano())
		take = c.cr.claim(n, now)
	}
	var bytes, latSum, latMax, latN int64
	nowNs := now.UnixNano()
	since := c.cr.start.Add(-engine.BacklogSkew).UnixNano()
	keep := c.cr.ivHist != nil // the interval's histogram is kept
	left := take
	for i := range fs {
		for j := range fs[i].Topics {
			t := &fs[i].Topics[j]
			for k := range t.Partitions {
				p := &t.Partitions[k]
				if p.Err != nil {
					if err := c.fetchError(t.Topic, p.Partition, p.Err); err != nil {
						return err
					}
				}
				recs := p.Records
				if len(recs) > left {
					recs = recs[:left]
				}
				if len(recs) == 0 {
					continue
				}
				left -= len(recs)
				if c.observe != nil {
					c.observe(recs, nowNs)
				}
				if c.latency {
					startNs := c.cr.start.UnixNano()
					tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
					_, drained := c.drained[tp] // once per partition's records, not per record
					for _, r := range recs {
						bytes += int64(len(r.Key) + len(r.Value))
						if c.decode != nil {
							c.decodeValue(r.Value)
						}
						sent, header := engine.SentNanos(r)
						if header {
							c.fromHeader++
						} else {
							c.fromTimestamp++
						}
						if sent < since {
							c.backlog++
							continue
						}
						if !drained && sent >= startNs {
							// The first record sent after the start: the backlog
							// before it has been read, in this partition; the
							// first of all partitions is caughtUp.
							c.caughtUpAt(tp, nowNs)
							drained = true
							if c.cr.caughtUp.Load() == 0 && c.cr.caughtUp.CompareAndSwap(0, nowNs-startNs) {
								c.cr.caughtUpRecords.Store(c.cr.consumed.Load())
							}
						}
						us := (nowNs - sent) / 1000
						c.latencyHist().Record(us) // a negative one is only counted
						if us >= 0 {
							latSum += us
							latMax = max(latMax, us)
							latN++
							if keep {
								c.pollLats = append(c.pollLats, us)
							}
						}
					}
				} else {
					for _, r := range recs {
						bytes += int64(len(r.Key) + len(r.Value))
						if c.decode != nil {
							c.decodeValue(r.Value)
						}
					}
				}
				if c.visible != nil {
					c.visible.Seen(engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}, recs, now)
				}
				if c.positions != nil {
					c.position(t.Topic, p.Partition).Store(recs[len(recs)-1].Offset + 1)
				}
			}
		}
	}
	if take > 0 {
		if b := c.cr.spec.Balance; b != nil {
			b.Received(int64(take))
		}
		c.cr.taken(nowNs)
		c.records += int64(take)
		c.bytes += bytes
		c.window.AddStats(measure.WindowStats{Count: int64(take), Bytes: bytes, LatSumUs: latSum, LatMaxUs: latMax, LatCount: latN})
	}
	if len(c.pollLats) > 0 {
		c.cr.ivHist.RecordAll(c.pollLats) // one lock per poll
		c.pollLats = c.pollLats[:0]
	}
	if proc := c.cr.spec.Processing; proc != nil && take > 0 {
		var d time.Duration
		for range take {
			d += proc(c.rng)
		}
		c.spend(d)
	}
	return nil
}

// fetchError counts a fetch error and decides whether the run can go on.
func (c *Client) fetchError(topic string, partition int32, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kgo.ErrClientClosed) {
		return nil
	}
	kind := engine.ErrorKind(err)
	c.errs.Add(kind)
	if !c.seenErr[kind] {
		c.seenErr[kind] = true
		if c.cr.spec.OnError != nil {
			c.cr.spec.OnError(kind, err)
		}
	}
	if engine.FatalFetchError(err) {
		if partition < 0 {
			return fmt.Errorf("consumer %d: %w", c.id, err)
		}
		return fmt.Errorf("consumer %d: fetch %s[%d]: %w", c.id, topic, partition, err)
	}
	return nil
}

// position returns the atomic holding the next offset to consume of a
// partition, registering it on first use. Only the first fetch of each
// partition takes the positions lock.
func (c *Client) position(topic string, partition int32) *atomic.Int64 {
	tp := engine.TopicPartition{Topic: topic, Partition: partition}
	if p, ok := c.posMap[tp]; ok {
		return p
	}
	p := c.positions.register(tp)
	c.posMap[tp] = p
	return p
}

// decodeValue decodes one record's value, counting it.
func (c *Client) decodeValue(v []byte) {
	if err := c.decode(v); err != nil {
		c.undecodable++
		if c.firstDecodeErr == nil {
			c.firstDecodeErr = err
		}
		return
	}
	c.decoded++
}
