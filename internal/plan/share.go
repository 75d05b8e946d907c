package plan

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ShareConsume is the workload type of share-group members (Kafka's
// queues, KIP-932): any number of clients per partition, records
// acknowledged one by one.
const ShareConsume = "share-consume"

// Share is how a share-consume workload's members treat their records.
type Share struct {
	// Explicit acknowledges record by record (share.acknowledgement.mode
	// explicit); implicit accepts every record at the next poll, and
	// takes no outcomes.
	Explicit bool
	// Release and Reject are the shares of deliveries released for
	// redelivery (a processing failure) and rejected (unprocessable),
	// drawn at random; the rest are accepted.
	Release, Reject float64
	// Pattern cycles outcomes by offset (offset modulo its length), as
	// Kafka's own share consumer system tests do: accept, release,
	// reject, renew (renew holds the lock, then accepts).
	Pattern []string
	// Renew renews a record's acquisition lock during processing (the
	// workload's processing) that lasts longer than half the lock's
	// duration.
	Renew bool
	// AutoOffsetReset is the group's share.auto.offset.reset (default
	// earliest: the group reads records written before it joined).
	AutoOffsetReset string
	// LockDuration is the group's share.record.lock.duration.ms; 0 leaves
	// the broker's (30 s).
	LockDuration time.Duration
	// DeliveryLimit is the group's share.delivery.count.limit; 0 leaves
	// the broker's (5).
	DeliveryLimit int
	// MaxPollRecords is each member's records in flight: Kafka's
	// max.poll.records, sent with share.acquire.mode=record_limit
	// (KIP-1206, Kafka 4.2+) so that the broker acquires at most this many
	// records per fetch; 0 leaves max.poll.records to the properties
	// (Java's default 500, a soft bound: the broker completes batches).
	MaxPollRecords int
	// Verify checks at the end that every record from where the group
	// started to the topic's end was settled exactly once (verify: false
	// turns it off).
	Verify bool
}

// Processing is a processing time per record: Fixed, or drawn from a
// distribution (exponential with Mean, or uniform from Min to Max).
type Processing struct {
	Fixed        time.Duration
	Distribution string // "", exponential or uniform
	Mean         time.Duration
	Min, Max     time.Duration
}

var shareFields = []string{"acknowledgement", "release", "reject", "ack_pattern", "renew",
	"auto_offset_reset", "record_lock_duration", "delivery_count_limit", "max_poll_records"}

// Kafka's bounds for a group's own lock duration and delivery limit
// (group.share.{min,max}.record.lock.duration.ms and
// group.share.{min,max}.delivery.count.limit, broker defaults).
const (
	minLockDuration = 15 * time.Second
	maxLockDuration = 60 * time.Second
)

func (c *collector) shareBlock(n *yaml.Node, path string) *Share {
	s := &Share{AutoOffsetReset: "earliest"}
	given := map[string]*yaml.Node{}
	ok := c.fields(n, path, shareFields, func(key string, v *yaml.Node) {
		given[key] = v
		p := join(path, key)
		switch key {
		case "acknowledgement":
			s.Explicit = c.oneOf(v, p, "implicit", "explicit") == "explicit"
		case "release":
			s.Release = c.ratio(v, p, "of deliveries released for redelivery")
		case "reject":
			s.Reject = c.ratio(v, p, "of deliveries rejected")
		case "ack_pattern":
			switch {
			case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
				c.addf(v, p, "is an empty list; write the outcomes of successive deliveries, repeated in turn, such as [accept, accept, release]")
				return
			case v.Kind != yaml.SequenceNode:
				c.addf(v, p, "is %s; write a list such as [accept, accept, release]", kindName(v))
				return
			}
			for i, e := range v.Content {
				s.Pattern = append(s.Pattern, c.oneOf(e, p+"["+strconv.Itoa(i)+"]", "accept", "release", "reject", "renew"))
			}
		case "renew":
			s.Renew = c.boolean(v, p)
		case "auto_offset_reset":
			s.AutoOffsetReset = c.oneOf(v, p, "earliest", "latest")
		case "record_lock_duration":
			d := c.duration(v, p)
			if d != 0 && (d < minLockDuration || d > maxLockDuration) {
				c.addf(v, p, "%s is outside what Kafka allows a group by default (%s to %s; the broker's group.share.min/max.record.lock.duration.ms)", d, minLockDuration, maxLockDuration)
			}
			s.LockDuration = d
		case "delivery_count_limit":
			if v, ok := c.whole(v, p, 2, 10); ok {
				s.DeliveryLimit = int(v)
			}
		case "max_poll_records":
			if v, ok := c.whole(v, p, 1, math.MaxInt32); ok {
				s.MaxPollRecords = int(v)
			}
		}
	})
	if !ok {
		return s
	}
	outcomes := given["release"] != nil || given["reject"] != nil || given["ack_pattern"] != nil
	if a := given["acknowledgement"]; a == nil {
		s.Explicit = outcomes // outcomes need explicit acknowledgement
	} else if !s.Explicit && outcomes {
		c.addf(a, join(path, "acknowledgement"), "implicit acknowledgement accepts every record; release, reject and ack_pattern need acknowledgement: explicit")
	}
	if s.Release+s.Reject > 1 {
		c.addf(given["release"], join(path, "release"), "release %g and reject %g make more than every delivery; their sum must be at most 1", s.Release, s.Reject)
	}
	if given["ack_pattern"] != nil && (given["release"] != nil || given["reject"] != nil) {
		c.addf(given["ack_pattern"], join(path, "ack_pattern"), "give ack_pattern (outcomes by offset) or release/reject ratios (at random), not both")
	}
	return s
}

// ratio is a share from 0 to 1, written as 0.1 or 10%.
func (c *collector) ratio(n *yaml.Node, path, what string) float64 {
	s, ok := c.scalar(n, path, "a share such as 0.1 or 10%")
	if !ok {
		return 0
	}
	text, scale := s, 1.0
	if strings.HasSuffix(s, "%") {
		text, scale = strings.TrimSuffix(s, "%"), 100
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	f /= scale
	if err != nil || !(f >= 0 && f <= 1) { // NaN too
		c.addf(n, path, "%q: write the share %s as a number from 0 to 1 (0.1) or a percentage (10%%)", s, what)
		return 0
	}
	return f
}

// processing is a duration (fixed), or {distribution: exponential, mean: D}
// or {distribution: uniform, min: D, max: D}.
func (c *collector) processing(n *yaml.Node, path string) *Processing {
	if n.Kind == yaml.ScalarNode {
		return &Processing{Fixed: c.duration(n, path)}
	}
	p := &Processing{}
	given := map[string]*yaml.Node{}
	if !c.fields(n, path, []string{"distribution", "mean", "min", "max"}, func(key string, v *yaml.Node) {
		given[key] = v
		switch key {
		case "distribution":
			p.Distribution = c.oneOf(v, join(path, key), "exponential", "uniform")
		case "mean":
			p.Mean = c.duration(v, join(path, key))
		case "min":
			p.Min = c.duration(v, join(path, key))
		case "max":
			p.Max = c.duration(v, join(path, key))
		}
	}) {
		return p
	}
	switch p.Distribution {
	case "exponential":
		if given["mean"] == nil {
			c.addf(n, join(path, "mean"), "missing; an exponential processing time needs its mean, such as mean: 2ms")
		}
	case "uniform":
		if given["min"] == nil || given["max"] == nil {
			c.addf(n, path, "a uniform processing time needs min and max, such as {distribution: uniform, min: 1ms, max: 3ms}")
		} else if p.Min > p.Max {
			c.addf(given["min"], join(path, "min"), "%s is above max %s", p.Min, p.Max)
		}
	case "":
		if given["distribution"] == nil {
			c.addf(n, join(path, "distribution"), "missing; write a duration (2ms), {distribution: exponential, mean: 2ms} or {distribution: uniform, min: 1ms, max: 3ms}")
		}
	}
	return p
}

// shareReleases checks that a local cluster of a plan with share-consume
// workloads runs a release with share groups (4.1 and newer; kbench
// enables them on 4.1), at check time rather than when the members join.
func (c *collector) shareReleases(p *Plan) {
	l := p.Cluster.Local
	if p.Cluster.Bootstrap != "" || l.versionNode == nil || !(strings.HasPrefix(l.Version, "3.") || strings.HasPrefix(l.Version, "4.0.")) {
		return
	}
	for _, sc := range p.scenarios {
		for _, w := range sc.Workloads {
			if w.rule().Share {
				c.addf(l.versionNode, "cluster.local.version", "Apache Kafka %s has no share groups for workload %s; use 4.1 or newer (4.2+ runs them by default)", l.Version, w.Name)
				return
			}
		}
	}
}
