package engine

// Client metrics for --print-metrics: kgo hooks that compute the metrics the
// Java clients print under the same names (see compat.PrintMetrics), from
// what kgo reports. ProducerMetrics and ConsumerMetrics are the two
// collectors; this file holds what they share: the network ("selector")
// metrics every Java client has, per broker and in total.
//
// Hooks run at most once per request, response, connection or record batch,
// plus once per record for the producer's promise; each updates atomic
// counters only, so no hook takes a lock or sends on a channel.
//
// Differences from Java, for everything this file emits:
//   - A rate is the total over the client's lifetime (from kgo.NewClient to
//     the snapshot) divided by that time. Java's rates cover a sliding window
//     (by default the last 30-60 s), so for a steady run the two agree, but
//     a run that slowed down at the end shows a higher rate here.
//   - An average or maximum of no samples is NaN, as in current Java
//     clients (older ones, such as 2.0, printed 0.000 and -Infinity).
//   - Requests and responses count only complete writes and reads, as Java
//     does; byte counts include the 4-byte size prefix but not TLS overhead.
//
// Java network metrics kgo gives no way to compute, left out: io-ratio,
// io-time-ns-avg, io-wait-ratio, io-wait-time-ns-avg, io-waittime-total,
// iotime-total, select-rate/total (Java NIO selector internals);
// successful-authentication-*, failed-authentication-*,
// successful-reauthentication-*, reauthentication-latency-* (kgo's hooks do
// not say whether SASL ran). The producer prints those Kafka 4 still has as
// NaN, as Java prints a metric without a value.

import (
	"cmp"
	"math"
	"net"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Request keys whose responses the collectors look at.
const (
	keyProduce  int16 = 0
	keyFetch    int16 = 1
	keyMetadata int16 = 3
)

// stat accumulates samples for a Java Avg and Max pair (and their count).
type stat struct {
	n, sum, max atomic.Int64
}

func (s *stat) record(v int64) {
	s.n.Add(1)
	s.sum.Add(v)
	for m := s.max.Load(); v > m && !s.max.CompareAndSwap(m, v); m = s.max.Load() {
	}
}

// merge adds o's samples to s; it is for snapshots, not for concurrent use.
func (s *stat) merge(o *stat) {
	s.n.Add(o.n.Load())
	s.sum.Add(o.sum.Load())
	s.max.Store(max(s.max.Load(), o.max.Load()))
}

// avgMax returns the average and maximum of the samples divided by unit,
// NaN for both without samples.
func (s *stat) avgMax(unit float64) (avg, maximum float64) {
	n := s.n.Load()
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return float64(s.sum.Load()) / float64(n) / unit, float64(s.max.Load()) / unit
}

// ratioAvg averages per-sample ratios, as Java's Avg of
// compression ratios does (an average of ratios, not a ratio of sums).
type ratioAvg struct {
	n   atomic.Int64
	sum atomic.Uint64 // float64 bits
}

func (r *ratioAvg) record(num, den int) {
	if den <= 0 {
		return
	}
	v := float64(num) / float64(den)
	for {
		old := r.sum.Load()
		if r.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			break
		}
	}
	r.n.Add(1)
}

func (r *ratioAvg) avg() float64 {
	return ratio(math.Float64frombits(r.sum.Load()), float64(r.n.Load()))
}

// ratio is num/den, NaN when den is 0 (an average of nothing).
func ratio(num, den float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// nodeStats are one broker's network metrics.
type nodeStats struct {
	id        int32
	requests  stat // bytes per request written
	responses stat // bytes per response read
	keyWrites atomic.Int64
	keyResp   stat // bytes per response to the collector's key request
	latency   stat // nanoseconds per response to the collector's key request
}

// netStats are the network metrics both collectors share. Their hook
// methods are promoted to the collectors.
type netStats struct {
	// key is the request whose latency and responses the client reports
	// on: Produce for the producer, Fetch for the consumer.
	key int16

	start        atomic.Int64 // unix nanoseconds the client was created
	lastMetadata atomic.Int64 // unix nanoseconds of the last Metadata response
	created      atomic.Int64
	closed       atomic.Int64
	throttle     stat // milliseconds, from throttled responses only
	nodes        sync.Map

	// inFlight counts key requests written whose end (a response, or the
	// write's end without one under acks=0) has not come yet.
	inFlight atomic.Int64
}

func (s *netStats) init(key int16) {
	s.key = key
	s.start.Store(time.Now().UnixNano())
}

func (s *netStats) node(id int32) *nodeStats {
	if n, ok := s.nodes.Load(id); ok {
		return n.(*nodeStats)
	}
	n, _ := s.nodes.LoadOrStore(id, &nodeStats{id: id})
	return n.(*nodeStats)
}

// sortedNodes returns the brokers seen, by id.
func (s *netStats) sortedNodes() []*nodeStats {
	var ns []*nodeStats
	s.nodes.Range(func(_, v any) bool {
		ns = append(ns, v.(*nodeStats))
		return true
	})
	slices.SortFunc(ns, func(a, b *nodeStats) int { return cmp.Compare(a.id, b.id) })
	return ns
}

// OnNewClient implements kgo.HookNewClient: the client's lifetime, which
// rates are over, starts here.
func (s *netStats) OnNewClient(*kgo.Client) { s.start.Store(time.Now().UnixNano()) }

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (s *netStats) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		s.created.Add(1)
	}
}

// OnBrokerDisconnect implements kgo.HookBrokerDisconnect.
func (s *netStats) OnBrokerDisconnect(kgo.BrokerMetadata, net.Conn) { s.closed.Add(1) }

// OnBrokerWrite implements kgo.HookBrokerWrite.
func (s *netStats) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, bytes int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	n := s.node(meta.NodeID)
	n.requests.record(int64(bytes))
	if key == s.key {
		n.keyWrites.Add(1)
		s.inFlight.Add(1)
	}
}

// OnBrokerRead implements kgo.HookBrokerRead.
func (s *netStats) OnBrokerRead(meta kgo.BrokerMetadata, _ int16, bytes int, _, _ time.Duration, err error) {
	if err == nil {
		s.node(meta.NodeID).responses.record(int64(bytes))
	}
}

// OnBrokerE2E implements kgo.HookBrokerE2E. A request's latency is Java's:
// from when the client queued it to the end of reading its response, which
// in kgo is WriteWait plus DurationE2E (kgo's own KIP-714 request latency
// adds the same four parts). Requests without a response (acks=0) have no
// latency, as in Java.
func (s *netStats) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	if key == s.key && e.WriteErr == nil {
		s.inFlight.Add(-1) // written (OnBrokerWrite counted it), now ended
	}
	if e.Err() != nil || e.BytesRead == 0 {
		return
	}
	switch key {
	case s.key:
		n := s.node(meta.NodeID)
		n.latency.record(int64(e.WriteWait + e.DurationE2E()))
		n.keyResp.record(int64(e.BytesRead))
	case keyMetadata:
		s.lastMetadata.Store(time.Now().UnixNano())
	}
}

// OnBrokerThrottle implements kgo.HookBrokerThrottle. Java records the
// throttle time of every response, 0 for most; kgo calls this only for
// throttled ones, so the average divides by all responses read.
func (s *netStats) OnBrokerThrottle(_ kgo.BrokerMetadata, interval time.Duration, _ bool) {
	s.throttle.record(interval.Milliseconds())
}

// snapshot is a point-in-time reading of netStats.
type snapshot struct {
	elapsed float64 // seconds of client lifetime
	total   nodeStats
	nodes   []*nodeStats
}

func (s *netStats) snapshot(now time.Time) *snapshot {
	sn := &snapshot{
		elapsed: now.Sub(time.Unix(0, s.start.Load())).Seconds(),
		nodes:   s.sortedNodes(),
	}
	for _, n := range sn.nodes {
		sn.total.requests.merge(&n.requests)
		sn.total.responses.merge(&n.responses)
		sn.total.keyWrites.Add(n.keyWrites.Load())
		sn.total.keyResp.merge(&n.keyResp)
		sn.total.latency.merge(&n.latency)
	}
	return sn
}

// rate is total per second of client lifetime, NaN before any time passed.
func (sn *snapshot) rate(total int64) float64 {
	if sn.elapsed <= 0 {
		return math.NaN()
	}
	return float64(total) / sn.elapsed
}

// throttleAvgMax is Java's throttle-time avg/max in ms: over every response.
func (s *netStats) throttleAvgMax(sn *snapshot) (avg, maximum float64) {
	responses := float64(sn.total.responses.n.Load())
	if responses == 0 {
		return math.NaN(), math.NaN()
	}
	return float64(s.throttle.sum.Load()) / responses, float64(s.throttle.max.Load())
}

// table collects one client's metrics, each tagged client-id first.
type table struct {
	clientID string
	ms       []measure.Metric
}

func (t *table) add(group, name string, v any, tags ...measure.Tag) {
	all := make([]measure.Tag, 0, 1+len(tags))
	all = append(all, measure.Tag{Key: "client-id", Value: t.clientID})
	t.ms = append(t.ms, measure.Metric{Group: group, Name: name, Tags: append(all, tags...), Value: v})
}

// addTotal adds name-total and name-rate.
func (t *table) addTotal(sn *snapshot, group, name string, total int64, tags ...measure.Tag) {
	t.add(group, name+"-total", float64(total), tags...)
	t.add(group, name+"-rate", sn.rate(total), tags...)
}

// addAvgMax adds name-avg and name-max.
func (t *table) addAvgMax(group, name string, avg, maximum float64, tags ...measure.Tag) {
	t.add(group, name+"-avg", avg, tags...)
	t.add(group, name+"-max", maximum, tags...)
}

// addNetwork adds the Java Selector metrics: totals to group, per broker to
// nodeGroup. Latency per broker is added only with nodeLatency (the
// producer's; Java's consumer registers it but never records it).
func (t *table) addNetwork(s *netStats, sn *snapshot, group, nodeGroup string, nodeLatency bool) {
	created, closed := s.created.Load(), s.closed.Load()
	t.add(group, "connection-count", float64(created-closed))
	t.addTotal(sn, group, "connection-creation", created)
	t.addTotal(sn, group, "connection-close", closed)
	t.addSelector(sn, group, &sn.total)
	// Java counts each completed send and receive as one network I/O.
	t.addTotal(sn, group, "network-io", sn.total.requests.n.Load()+sn.total.responses.n.Load())
	for _, n := range sn.nodes {
		tag := measure.Tag{Key: "node-id", Value: javaNodeID(n.id)}
		t.addSelector(sn, nodeGroup, n, tag)
		if nodeLatency {
			avg, maximum := n.latency.avgMax(float64(time.Millisecond))
			t.addAvgMax(nodeGroup, "request-latency", avg, maximum, tag)
		}
	}
}

func (t *table) addSelector(sn *snapshot, group string, n *nodeStats, tags ...measure.Tag) {
	t.addTotal(sn, group, "request", n.requests.n.Load(), tags...)
	avg, maximum := n.requests.avgMax(1)
	t.addAvgMax(group, "request-size", avg, maximum, tags...)
	t.addTotal(sn, group, "outgoing-byte", n.requests.sum.Load(), tags...)
	t.addTotal(sn, group, "response", n.responses.n.Load(), tags...)
	t.addTotal(sn, group, "incoming-byte", n.responses.sum.Load(), tags...)
}

// addAppInfo adds app-info (version, commit-id when the binary has one,
// start-time-ms) for the client started at start.
func (t *table) addAppInfo(version string, start time.Time) {
	t.add("app-info", "version", version)
	if c := commitID(); c != "" {
		t.add("app-info", "commit-id", c)
	}
	t.add("app-info", "start-time-ms", start.UnixMilli())
}

// done adds kafka-metrics-count, which counts every metric including itself,
// and returns the table.
func (t *table) done() []measure.Metric {
	t.add("kafka-metrics-count", "count", float64(len(t.ms)+1))
	return t.ms
}

// javaNodeID names a broker as Java's node-id tag does. kgo numbers the seed
// brokers up from math.MinInt32; Java numbers its bootstrap nodes -1, -2, ...
// in the same order.
func javaNodeID(id int32) string {
	if id < math.MinInt32/2 {
		id = -(id - math.MinInt32) - 1
	}
	return "node-" + strconv.Itoa(int(id))
}

// commitID is the first 16 hex digits of the VCS revision kbench was built
// from (Java prints as many of the Kafka build's), or "" if unknown.
var commitID = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			return s.Value[:min(16, len(s.Value))]
		}
	}
	return ""
})

// topics maps topic names to their metrics T. The last topic looked up is
// cached, so a per-record hook producing to one topic skips the map.
type topics[T any] struct {
	m    sync.Map // string → *topic[T]
	last atomic.Pointer[topic[T]]
}

type topic[T any] struct {
	name  string
	stats T
}

func (ts *topics[T]) get(name string) *T {
	if t := ts.last.Load(); t != nil && t.name == name {
		return &t.stats
	}
	v, ok := ts.m.Load(name)
	if !ok {
		v, _ = ts.m.LoadOrStore(name, &topic[T]{name: name})
	}
	t := v.(*topic[T])
	ts.last.Store(t)
	return &t.stats
}

// sorted returns the topics by name.
func (ts *topics[T]) sorted() []*topic[T] {
	var all []*topic[T]
	ts.m.Range(func(_, v any) bool {
		all = append(all, v.(*topic[T]))
		return true
	})
	slices.SortFunc(all, func(a, b *topic[T]) int { return cmp.Compare(a.name, b.name) })
	return all
}
