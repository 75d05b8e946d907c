package study

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/kbench/kbench/internal/workload/share"
)

// buildShareConsume builds a "share-consume" workload: members of a share
// group, with the group's configs the plan sets.
func buildShareConsume(in kindInput) (workload.Spec, map[string]string, error) {
	w, sh := in.w, in.w.Share
	group := w.Group
	if group == "" {
		group = "kbench-" + w.Name + "-" + in.b.runID // a run's own share group
	}
	mode := "implicit"
	if sh.Explicit {
		mode = "explicit"
	}
	props := append(in.props(),
		kafkaconf.Prop{Key: "group.id", Value: group, Source: "group"},
		kafkaconf.Prop{Key: "share.acknowledgement.mode", Value: mode, Source: "share.acknowledgement"})
	if sh.MaxPollRecords > 0 {
		props = append(props, kafkaconf.Prop{Key: "max.poll.records", Value: strconv.Itoa(sh.MaxPollRecords), Source: "share.max_poll_records"})
	}
	parsed, err := in.b.parseConsumer(props)
	if err != nil {
		return nil, nil, err
	}
	in.b.warn(w.Name, parsed.warns)
	opts, err := parsed.cc.ShareOpts()
	if err != nil {
		return nil, nil, err
	}
	cc := parsed.cc
	spec := consume.ConsumerSpec{
		Interval:       seriesInterval,
		Topics:         []string{w.Topic},
		Group:          group,
		Clients:        w.Clients,
		MaxPollRecords: cc.MaxPollRecords,
		Records:        w.Records,
		Duration:       w.Duration,
		IdleTimeout:    w.Timeout,
		ClientOpts: engine.PerClient(opts, func(i int) []kgo.Opt {
			return []kgo.Opt{kgo.ClientID(cc.ClientIDOf(w.Name, i))}
		}),
		Latency: true,
		Lag:     true,
		Seed:    messageSeed(in.b.seed, w, in.index),
	}
	members := shareSpec(sh, w.Processing)
	members.OnStall = in.b.stallOf(w.Name)
	members.RecordLimit = sh.MaxPollRecords > 0
	in.b.observeConsumer(w.Name, &spec)
	// A fresh map: parsed.settings is shared by the workloads with the
	// same properties, and the group's configs are this workload's.
	settings := cc.ShareSettings()
	configs := groupConfigs(sh)
	for k, v := range configs {
		settings["group."+k] = v
	}
	if members.RecordLimit {
		settings["share.acquire.mode"] = "record_limit"
	}
	return workload.ShareConsume{Spec: spec, Share: *members, Verify: sh.Verify, GroupConfigs: configs}, settings, nil
}

// groupConfigs are the share group's configs the plan sets (kadm's
// IncrementalAlterConfigs on the group, as kafka-configs --entity-type
// groups does).
func groupConfigs(sh *plan.Share) map[string]string {
	out := map[string]string{"share.auto.offset.reset": sh.AutoOffsetReset}
	if sh.LockDuration > 0 {
		out["share.record.lock.duration.ms"] = strconv.FormatInt(sh.LockDuration.Milliseconds(), 10)
	}
	if sh.DeliveryLimit > 0 {
		out["share.delivery.count.limit"] = strconv.Itoa(sh.DeliveryLimit)
	}
	return out
}

// brokerLockDuration and brokerDeliveryLimit are Kafka's defaults
// (group.share.record.lock.duration.ms, group.share.delivery.count.limit).
const (
	brokerLockDuration  = 30 * time.Second
	brokerDeliveryLimit = 5
)

func shareSpec(sh *plan.Share, processing *plan.Processing) *share.Spec {
	out := &share.Spec{DeliveryLimit: brokerDeliveryLimit}
	if sh.DeliveryLimit > 0 {
		out.DeliveryLimit = int32(sh.DeliveryLimit)
	}
	if sh.Renew {
		lock := brokerLockDuration
		if sh.LockDuration > 0 {
			lock = sh.LockDuration
		}
		out.RenewAfter = lock / 2
	}
	switch {
	case len(sh.Pattern) > 0:
		pattern := make([]share.Ack, len(sh.Pattern))
		for i, p := range sh.Pattern {
			pattern[i] = map[string]share.Ack{"accept": share.Accept, "release": share.Release,
				"reject": share.Reject, "renew": share.Renew}[p]
		}
		// By offset, as Kafka's VerifiableShareConsumer --ack-pattern.
		out.Outcome = func(_ *rand.Rand, offset int64, _ int32) share.Ack {
			return pattern[offset%int64(len(pattern))]
		}
	case sh.Release > 0 || sh.Reject > 0:
		release, reject := sh.Release, sh.Reject
		out.Outcome = func(rng *rand.Rand, _ int64, _ int32) share.Ack {
			switch f := rng.Float64(); {
			case f < release:
				return share.Release
			case f < release+reject:
				return share.Reject
			}
			return share.Accept
		}
	}
	if processing != nil {
		out.Processing = processingTime(processing)
	}
	return out
}

func processingTime(p *plan.Processing) func(*rand.Rand) time.Duration {
	switch p.Distribution {
	case "exponential":
		mean := float64(p.Mean)
		return func(rng *rand.Rand) time.Duration {
			return time.Duration(math.Min(rng.ExpFloat64()*mean, 100*mean))
		}
	case "uniform":
		lo, span := p.Min, p.Max-p.Min
		return func(rng *rand.Rand) time.Duration {
			return lo + time.Duration(rng.Int64N(int64(span)+1))
		}
	}
	d := p.Fixed
	return func(*rand.Rand) time.Duration { return d }
}

// shareCeiling: each member holds the records of a fetch (B,
// max.poll.records) locked until it has processed them, B × processing,
// and a share-partition lets at most L records be locked at once
// (group.share.partition.max.record.locks): by Little's law the group
// settles at most partitions × L ÷ (B × processing) records/s, and its
// members at most members ÷ processing. With batch_optimized fetches a
// member may hold more than B (whole batches): the bound is then loose.
func shareCeiling(in ceilingInput) (float64, string, bool) {
	s, ok := in.spec.(workload.ShareConsume)
	if !ok {
		return 0, "", false
	}
	b := s.Spec.MaxPollRecords
	if b <= 0 {
		b = defaultMaxPollRecords
	}
	working := min(float64(s.Spec.Clients), float64(in.partitions*in.recordLocks)/float64(b))
	return working / in.processing.Seconds(),
		fmt.Sprintf("min(%d members, %d partitions × %d record locks ÷ %d records in flight per member) ÷ %s per record",
			s.Spec.Clients, in.partitions, in.recordLocks, b, in.processing), true
}
