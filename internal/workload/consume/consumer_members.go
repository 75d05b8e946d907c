package consume

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/engine"
)

// Membership is how a run's clients read when they are neither a
// consumer group's members nor given partitions directly: another
// family's group (a share group, package share). The run keeps what every
// reader has (the target, stop conditions, intervals, lag series, the
// result's counts); the membership gives each client its poll handling
// and measures its group's lag.
type Membership interface {
	// Member returns client c's member, called once per client before
	// the clients start.
	Member(c *Client) Member
	// SampleLag measures the group's lag now (with ConsumerSpec.Lag), in
	// place of end offsets less the clients' positions, and adds it with
	// p.Add; a sample that cannot be measured is skipped.
	SampleLag(ctx context.Context, p *LagSampler)
	// Collect is called once the poll loops have ended, as the run
	// collects its result, before the clients close and leave the group.
	Collect()
}

// Member is one client's part of a Membership.
type Member interface {
	// Options are the client options that make it a member (its group,
	// topics and callbacks).
	Options() []kgo.Opt
	// Handle accounts one poll, returned at polled; an error ends the run.
	Handle(fs kgo.Fetches, polled time.Time) error
	// Late hands back the records of a poll that returned after the run
	// ended: they are past its end.
	Late(fs kgo.Fetches)
	// Done is called once the poll loop has ended, before the client
	// closes.
	Done()
}

// ID is the client's index among the run's clients.
func (c *Client) ID() int { return c.id }

// Kgo is the client's franz-go client.
func (c *Client) Kgo() *kgo.Client { return c.cl }

// Seed is the seed of the client's own random draws (ConsumerSpec.Seed).
func (c *Client) Seed() uint64 { return c.cr.spec.clientSeed(c.id) }

// Ended reports whether the run has ended: records polled after it are
// another reader's.
func (c *Client) Ended() bool { return c.cr.runCtx.Err() != nil }

// Interrupted reports whether the caller's context ended the run
// (Ctrl-C): what is left to do at the end gets a shorter bound.
func (c *Client) Interrupted() bool { return c.cr.interrupted() }

// Claim counts n records just settled at `at` and returns how many of
// them the run takes (see ConsumerRun.claim).
func (c *Client) Claim(n int, at time.Time) int { return c.cr.claim(n, at) }

// Received notes that records arrived at `at` (the idle timeout counts
// from the last).
func (c *Client) Received(at time.Time) { c.cr.lastRecv.Store(at.UnixNano()) }

// Latency counts record r's end-to-end latency to polled, as the
// consumer's poll loop does: its send time's source, a backlog record
// left out, the client's histogram and the interval's. ok is false for a
// record left out or with a negative latency (counted, not summed).
func (c *Client) Latency(r *kgo.Record, polled time.Time) (us int64, ok bool) {
	sent, header := engine.SentNanos(r)
	if header {
		c.fromHeader++
	} else {
		c.fromTimestamp++
	}
	if sent < c.cr.start.Add(-engine.BacklogSkew).UnixNano() {
		c.backlog++
		return 0, false
	}
	us = (polled.UnixNano() - sent) / 1000
	c.latencyHist().Record(us)
	if us < 0 {
		return us, false
	}
	if c.cr.ivHist != nil {
		c.pollLats = append(c.pollLats, us)
	}
	return us, true
}

// LatencyOn reports whether the run measures end-to-end latency.
func (c *Client) LatencyOn() bool { return c.latency }

// Took adds a poll's records the run took, at `at`, with their bytes and
// the sum, maximum and count of their latencies, and hands the poll's
// latencies to the interval's histogram.
func (c *Client) Took(at time.Time, records, bytes int64, lat measure.WindowStats) {
	if records > 0 {
		c.cr.taken(at.UnixNano())
		c.records += records
		c.bytes += bytes
		c.window.AddStats(measure.WindowStats{Count: records, Bytes: bytes, LatSumUs: lat.LatSumUs, LatMaxUs: lat.LatMaxUs, LatCount: lat.LatCount})
	}
	if len(c.pollLats) > 0 {
		c.cr.ivHist.RecordAll(c.pollLats) // one lock per poll
		c.pollLats = c.pollLats[:0]
	}
}

// Totals are the records and bytes the client took so far.
func (c *Client) Totals() (records, bytes int64) { return c.records, c.bytes }

// FetchError counts a fetch error and says whether the run can go on.
func (c *Client) FetchError(topic string, partition int32, err error) error {
	return c.fetchError(topic, partition, err)
}

// Spend takes d of processing time on the client's own clock.
func (c *Client) Spend(d time.Duration) { c.spend(d) }

// NewLagSampler is a sampler of spec's topics (parts) outside a run, with
// admin as its admin client: a Membership's SampleLag checked on its own.
// Its samples go to spec.OnLag.
func NewLagSampler(admin *kgo.Client, spec ConsumerSpec, parts map[string][]int32) *LagSampler {
	return newLagSampler(&ConsumerRun{spec: spec, admin: admin, start: time.Now()}, parts)
}

// Admin is the run's admin client.
func (s *LagSampler) Admin() *kadm.Client { return s.adm }

// AdminKgo is the run's admin client, for requests kadm does not make.
func (s *LagSampler) AdminKgo() *kgo.Client { return s.cr.admin }

// Topics are the run's topics, sorted.
func (s *LagSampler) Topics() []string { return s.topics }

// LogStart is a partition's log start offset, listed once per run.
func (s *LagSampler) LogStart(ctx context.Context, topic string, partition int32) int64 {
	return s.logStart(ctx, topic, partition)
}

// Add records a lag sample, the run's own and the one its result keeps.
func (s *LagSampler) Add(lag int64) { s.add(lag, lag) }

// Quiet is how long ago records last arrived (or the run started).
func (s *LagSampler) Quiet() time.Duration { return time.Since(time.Unix(0, s.cr.lastRecv.Load())) }
