package workload

import (
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProducerMetrics computes a producer client's Java metrics (groups
// producer-metrics, producer-node-metrics, producer-topic-metrics, app-info)
// from kgo hooks, for kafka-producer-perf-test --print-metrics. Give each
// client its own; install it with Hooks and read it with Metrics.
//
// How each metric is computed, where Java's differs (beyond the lifetime
// rates and byte counts described at the top of clientmetrics.go):
//   - record-send-total/rate: records whose produce promise succeeded,
//     counted in OnProduceRecordUnbuffered (kgo calls it synchronously before
//     each promise, so the count is complete once Flush returns). Java counts
//     records when their batch is sent, and again for each retry.
//   - record-error-total/rate: records whose promise failed, including ones
//     that never reached a broker (Java counts failed batches only).
//   - batch-size-avg/max, byte-total/rate (per topic): kgo's CompressedBytes
//     of each successfully written batch, which excludes the 61-byte record
//     batch header Java's batch size includes.
//   - compression-rate-avg, compression-rate (per topic): the average over
//     written batches of CompressedBytes/UncompressedBytes (Java too
//     averages the ratios of its batches).
//   - records-per-request-avg: record-send-total over Produce requests
//     written.
//   - request-latency-avg/max (total and per node): Produce requests with
//     a response, see netStats.OnBrokerE2E, in fractional milliseconds (Java
//     truncates each sample to whole milliseconds).
//   - produce-throttle-time-avg/max: throttle milliseconds over every
//     response read, as Java's NetworkClient records it for all responses.
//     kgo's throttle hook does not name the request.
//   - metadata-age: seconds since the last Metadata response.
//   - buffer-total-bytes: the bufferBytes given to NewProducerMetrics, only
//     when positive.
//
// kgo calls OnProduceBatchWritten from a goroutine it starts after the
// batch's promises, so the batch metrics (batch-size, compression-rate,
// byte-total) of the last requests can land a moment after Flush returns;
// the record counts cannot.
//
// Left out, as kgo does not expose them: record-retry-total/rate (kgo
// counts tries internally only), record-queue-time-avg/max, record-size-avg/max
// (kgo reports batch sizes, not encoded record sizes), batch-split-total/rate,
// buffer-available-bytes, buffer-exhausted-total/rate, bufferpool-wait-*,
// waiting-threads (kgo's buffer is a record count or byte limit, not a pool
// of memory), and the timing metrics txn-*-time-ns-total,
// flush-time-ns-total and metadata-wait-time-ns-total.
type ProducerMetrics struct {
	netStats
	clientID    string
	version     string
	bufferBytes int64

	batches stat // CompressedBytes per written batch
	ratios  ratioAvg
	topics  topics[producerTopic]
}

type producerTopic struct {
	sent, errors atomic.Int64
	bytes        atomic.Int64
	ratios       ratioAvg
}

var _ interface {
	kgo.HookNewClient
	kgo.HookBrokerConnect
	kgo.HookBrokerDisconnect
	kgo.HookBrokerWrite
	kgo.HookBrokerRead
	kgo.HookBrokerE2E
	kgo.HookBrokerThrottle
	kgo.HookProduceBatchWritten
	kgo.HookProduceRecordUnbuffered
} = (*ProducerMetrics)(nil)

// NewProducerMetrics returns a collector for the producer with the given
// client-id. version is reported as app-info version; bufferBytes is the
// configured buffer (buffer.memory), reported when positive.
func NewProducerMetrics(clientID, version string, bufferBytes int64) *ProducerMetrics {
	m := &ProducerMetrics{clientID: clientID, version: version, bufferBytes: bufferBytes}
	m.init(keyProduce)
	return m
}

// Hooks returns the option that installs m in a client.
func (m *ProducerMetrics) Hooks() kgo.Opt { return kgo.WithHooks(m) }

// OnProduceBatchWritten implements kgo.HookProduceBatchWritten.
func (m *ProducerMetrics) OnProduceBatchWritten(_ kgo.BrokerMetadata, topic string, _ int32, b kgo.ProduceBatchMetrics) {
	m.batches.record(int64(b.CompressedBytes))
	m.ratios.record(b.CompressedBytes, b.UncompressedBytes)
	t := m.topics.get(topic)
	t.bytes.Add(int64(b.CompressedBytes))
	t.ratios.record(b.CompressedBytes, b.UncompressedBytes)
}

// OnProduceRecordUnbuffered implements kgo.HookProduceRecordUnbuffered; it
// runs once per record, so it only bumps one counter.
func (m *ProducerMetrics) OnProduceRecordUnbuffered(r *kgo.Record, err error) {
	t := m.topics.get(r.Topic)
	if err != nil {
		t.errors.Add(1)
		return
	}
	t.sent.Add(1)
}

// Metrics returns the client's metrics as of now.
func (m *ProducerMetrics) Metrics(now time.Time) []measure.Metric {
	const g, tg = "producer-metrics", "producer-topic-metrics"
	sn := m.snapshot(now)
	t := &table{clientID: m.clientID}
	t.addAppInfo(m.version, time.Unix(0, m.start.Load()))
	t.addNetwork(&m.netStats, sn, g, "producer-node-metrics", true)

	avg, maximum := m.batches.avgMax(1)
	t.addAvgMax(g, "batch-size", avg, maximum)
	t.add(g, "compression-rate-avg", m.ratios.avg())
	if m.bufferBytes > 0 {
		t.add(g, "buffer-total-bytes", float64(m.bufferBytes))
	}
	if last := m.lastMetadata.Load(); last != 0 {
		t.add(g, "metadata-age", now.Sub(time.Unix(0, last)).Seconds())
	}
	avg, maximum = m.throttleAvgMax(sn)
	t.addAvgMax(g, "produce-throttle-time", avg, maximum)
	avg, maximum = sn.total.latency.avgMax(float64(time.Millisecond))
	t.addAvgMax(g, "request-latency", avg, maximum)

	var sent, errs int64
	for _, tp := range m.topics.sorted() {
		s := &tp.stats
		sent += s.sent.Load()
		errs += s.errors.Load()
		if tp.name == "" { // a record that failed before it had a topic
			continue
		}
		tag := measure.Tag{Key: "topic", Value: tp.name}
		t.addTotal(sn, tg, "record-send", s.sent.Load(), tag)
		t.addTotal(sn, tg, "record-error", s.errors.Load(), tag)
		t.addTotal(sn, tg, "byte", s.bytes.Load(), tag)
		t.add(tg, "compression-rate", s.ratios.avg(), tag)
	}
	t.addTotal(sn, g, "record-send", sent)
	t.addTotal(sn, g, "record-error", errs)
	t.add(g, "records-per-request-avg", ratio(float64(sent), float64(sn.total.keyWrites.Load())))
	return t.done()
}
