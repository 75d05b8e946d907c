package engine

import (
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumerMetrics computes a consumer client's Java metrics (groups
// consumer-metrics, consumer-node-metrics, consumer-fetch-manager-metrics,
// app-info) from kgo hooks, for kafka-consumer-perf-test --print-metrics.
// Give each client its own; install it with Hooks and read it with Metrics.
//
// How each consumer-fetch-manager-metrics metric is computed, where Java's
// differs (beyond the lifetime rates and byte counts described at the top
// of clientmetrics.go):
//   - records-consumed-total/rate, bytes-consumed-total/rate (total and per
//     topic): NumRecords and CompressedBytes of each record batch kgo
//     decodes (OnFetchBatchRead), when it is fetched rather than when it is
//     polled, so records still buffered at the end count; NumRecords
//     includes transaction markers, and the bytes exclude the 61-byte batch
//     header Java counts.
//   - fetch-total/rate: Fetch responses read.
//   - fetch-latency-avg/max: Fetch request latency, see
//     netStats.OnBrokerE2E, in fractional milliseconds; it includes the
//     broker's long-poll wait (kgo's FetchMaxWait defaults to 5 s, Java's
//     fetch.max.wait.ms to 500 ms).
//   - fetch-size-avg/max: size of each Fetch response read, protocol framing
//     included (Java sums the record batches in it).
//   - records-per-request-avg: records-consumed-total over fetch-total.
//   - fetch-throttle-time-avg/max: throttle milliseconds over every
//     response read, as Java's NetworkClient records it.
//
// Left out, as kgo's hooks do not expose them: fetch-size-avg/max and
// records-per-request-avg per topic (a batch hook does not say which
// response it came in), records-lag*/records-lead* (per partition),
// preferred-read-replica, every consumer-coordinator-metrics metric
// (rebalance-*, join-*, sync-*, heartbeat-*, commit-*, assigned-partitions:
// no hook reports group events), poll metrics (last-poll-seconds-ago,
// time-between-poll-*, poll-idle-ratio-avg) and the *-time-ns-total ones.
// Per-topic metrics use the topic name as is; Java also registers a copy
// with '.' replaced by '_' (deprecated).
type ConsumerMetrics struct {
	netStats
	clientID string
	version  string
	topics   topics[consumerTopic]
}

type consumerTopic struct {
	records, bytes atomic.Int64
}

var _ interface {
	kgo.HookNewClient
	kgo.HookBrokerConnect
	kgo.HookBrokerDisconnect
	kgo.HookBrokerWrite
	kgo.HookBrokerRead
	kgo.HookBrokerE2E
	kgo.HookBrokerThrottle
	kgo.HookFetchBatchRead
} = (*ConsumerMetrics)(nil)

// NewConsumerMetrics returns a collector for the consumer with the given
// client-id; version is reported as app-info version.
func NewConsumerMetrics(clientID, version string) *ConsumerMetrics {
	m := &ConsumerMetrics{clientID: clientID, version: version}
	m.init(keyFetch)
	return m
}

// Hooks returns the option that installs m in a client.
func (m *ConsumerMetrics) Hooks() kgo.Opt { return kgo.WithHooks(m) }

// OnFetchBatchRead implements kgo.HookFetchBatchRead.
func (m *ConsumerMetrics) OnFetchBatchRead(_ kgo.BrokerMetadata, topic string, _ int32, b kgo.FetchBatchMetrics) {
	t := m.topics.get(topic)
	t.records.Add(int64(b.NumRecords))
	t.bytes.Add(int64(b.CompressedBytes))
}

// Metrics returns the client's metrics as of now.
func (m *ConsumerMetrics) Metrics(now time.Time) []measure.Metric {
	const g = "consumer-fetch-manager-metrics"
	sn := m.snapshot(now)
	t := &table{clientID: m.clientID}
	t.addAppInfo(m.version, time.Unix(0, m.start.Load()))
	t.addNetwork(&m.netStats, sn, "consumer-metrics", "consumer-node-metrics", false)

	var records, bytes int64
	for _, tp := range m.topics.sorted() {
		s := &tp.stats
		records += s.records.Load()
		bytes += s.bytes.Load()
		tag := measure.Tag{Key: "topic", Value: tp.name}
		t.addTotal(sn, g, "records-consumed", s.records.Load(), tag)
		t.addTotal(sn, g, "bytes-consumed", s.bytes.Load(), tag)
	}
	t.addTotal(sn, g, "records-consumed", records)
	t.addTotal(sn, g, "bytes-consumed", bytes)

	fetches := sn.total.latency.n.Load()
	t.addTotal(sn, g, "fetch", fetches)
	avg, maximum := sn.total.latency.avgMax(float64(time.Millisecond))
	t.addAvgMax(g, "fetch-latency", avg, maximum)
	avg, maximum = sn.total.keyResp.avgMax(1)
	t.addAvgMax(g, "fetch-size", avg, maximum)
	t.add(g, "records-per-request-avg", ratio(float64(records), float64(fetches)))
	avg, maximum = m.throttleAvgMax(sn)
	t.addAvgMax(g, "fetch-throttle-time", avg, maximum)
	return t.done()
}
