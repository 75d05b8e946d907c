package engine

import (
	"errors"
	"math"
	"sync"
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
//     when positive; buffer-available-bytes, that less the bytes franz-go
//     holds (keys, values and headers of records buffered, counted from
//     the buffered and unbuffered hooks: franz-go's own count, not Java's
//     pool of batch buffers).
//   - bufferpool-wait-time-ns-total, bufferpool-wait-ratio and
//     waiting-threads: Produce calls that found the buffer full (by that
//     count, against the client's MaxBufferedBytes and MaxBufferedRecords,
//     which kafkaconf derives from buffer.memory) and so blocked until room
//     was made: the
//     time from the buffered hook to the partitioned one, which franz-go
//     calls before and after the wait; the ratio is over the client's
//     lifetime; waiting-threads those blocked now.
//   - buffer-exhausted-total/rate: records failed with kgo.ErrMaxBuffered
//     (kbench's Produce waits for room instead, so these stay 0).
//   - record-size-avg/max: per record sent, Java's estimate of its size in
//     a batch (the 61-byte batch header, 21 bytes of record overhead, and
//     the key, value and headers with their varint lengths:
//     DefaultRecordBatch.estimateBatchSizeUpperBound). Java averages the
//     largest record of each batch; for records of one size they agree.
//   - requests-in-flight: Produce requests written and not yet answered.
//   - batch-split-total/rate: 0: franz-go never splits a batch (a batch
//     the broker finds too large fails).
//   - metadata-wait-time-ns-total: 0: franz-go's Produce never waits for
//     metadata (it buffers records of a topic still unknown).
//
// kgo calls OnProduceBatchWritten from a goroutine it starts after the
// batch's promises, so the batch metrics (batch-size, compression-rate,
// byte-total) of the last requests can land a moment after Flush returns;
// the record counts cannot.
//
// Printed as NaN, as Java prints a metric without a value, since no hook
// gives them (unavailableProducer): record-retry-total/rate, also per
// topic (franz-go counts a batch's tries internally only);
// record-queue-time-avg/max (no hook says when a batch leaves the buffer
// for a request); the selector's select-*, io-* (Go's network poller has
// no select loop to time) and authentication metrics (the hooks do not
// say whether SASL ran); and flush-time-ns-total and txn-*-time-ns-total
// (the calls are the producer's, not the client's hooks'). The names are
// Kafka 4's: bufferpool-wait-time-total, io-waittime-total and
// iotime-total, removed in 4.0, are not printed.
type ProducerMetrics struct {
	netStats
	clientID    string
	version     string
	bufferBytes int64

	batches stat // CompressedBytes per written batch
	ratios  ratioAvg
	topics  topics[producerTopic]

	// The buffer as franz-go holds it, from its hooks: records and their
	// bytes, its limits (set by OnNewClient; 0: none), Produce calls
	// blocked on it now and the time they waited in all.
	maxRecords, maxBytes int64
	buffered, bufBytes   atomic.Int64
	waiting              atomic.Int64
	waitStart            sync.Map // *kgo.Record → time.Time, while blocked
	waitNs               atomic.Int64
	exhausted            atomic.Int64
	sizes                stat // Java's record size estimate, per record sent
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
	kgo.HookProduceRecordBuffered
	kgo.HookProduceRecordPartitioned
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

// OnNewClient implements kgo.HookNewClient: the client's lifetime starts,
// and its buffer limits are read (kafkaconf derives them from
// buffer.memory), before any record is produced.
func (m *ProducerMetrics) OnNewClient(cl *kgo.Client) {
	m.netStats.OnNewClient(cl)
	if cl == nil {
		return
	}
	if v, ok := cl.OptValue(kgo.MaxBufferedRecords).(int64); ok {
		m.maxRecords = v
	}
	if v, ok := cl.OptValue(kgo.MaxBufferedBytes).(int64); ok {
		m.maxBytes = v
	}
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

// OnProduceRecordBuffered implements kgo.HookProduceRecordBuffered.
// franz-go calls it in Produce before it waits for room in a full buffer,
// so a record that finds the buffer full starts its wait here.
func (m *ProducerMetrics) OnProduceRecordBuffered(r *kgo.Record) {
	size := bufferedSize(r)
	// franz-go's test: a record that does not fit waits, and is counted
	// in the buffer only once it has room (OnProduceRecordPartitioned).
	if m.maxRecords > 0 && m.buffered.Load() >= m.maxRecords || m.maxBytes > 0 && m.bufBytes.Load()+size > m.maxBytes {
		m.waitStart.Store(r, time.Now())
		m.waiting.Add(1)
		return
	}
	m.buffered.Add(1)
	m.bufBytes.Add(size)
}

// OnProduceRecordPartitioned implements kgo.HookProduceRecordPartitioned:
// franz-go calls it in Produce once the record has room, so a wait ends
// here. It costs one atomic load per record while no Produce waits.
func (m *ProducerMetrics) OnProduceRecordPartitioned(r *kgo.Record, _ int32) {
	if m.waiting.Load() > 0 && m.endWait(r) {
		m.buffered.Add(1)
		m.bufBytes.Add(bufferedSize(r))
	}
}

// endWait ends r's wait for room, if it was waiting.
func (m *ProducerMetrics) endWait(r *kgo.Record) bool {
	t, ok := m.waitStart.LoadAndDelete(r)
	if ok {
		m.waitNs.Add(int64(time.Since(t.(time.Time))))
		m.waiting.Add(-1)
	}
	return ok
}

// OnProduceRecordUnbuffered implements kgo.HookProduceRecordUnbuffered; it
// runs once per record, so it only updates counters.
func (m *ProducerMetrics) OnProduceRecordUnbuffered(r *kgo.Record, err error) {
	// A record that failed while it waited was never in the buffer.
	if m.waiting.Load() == 0 || !m.endWait(r) {
		m.buffered.Add(-1)
		m.bufBytes.Add(-bufferedSize(r))
	}
	t := m.topics.get(r.Topic)
	if err != nil {
		t.errors.Add(1)
		if errors.Is(err, kgo.ErrMaxBuffered) {
			m.exhausted.Add(1)
		}
		return
	}
	t.sent.Add(1)
	m.sizes.record(javaRecordSize(r))
}

// bufferedSize is what a record takes of franz-go's buffer: its key, value
// and headers' keys and values.
func bufferedSize(r *kgo.Record) int64 {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return int64(n)
}

// javaRecordSize is the Java producer's estimate of a record's size in a
// batch (DefaultRecordBatch.estimateBatchSizeUpperBound), which its
// record-size metrics report: the batch header (61 bytes), the record's
// largest overhead (21), then the key and value with their varint lengths
// (a missing one is a 1-byte -1), and the headers with theirs.
func javaRecordSize(r *kgo.Record) int64 {
	field := func(b []byte) int {
		if b == nil {
			return 1
		}
		return varintLen(len(b)) + len(b)
	}
	n := 61 + 21 + field(r.Key) + field(r.Value) + varintLen(len(r.Headers))
	for _, h := range r.Headers {
		n += varintLen(len(h.Key)) + len(h.Key) + field(h.Value)
	}
	return int64(n)
}

// varintLen is the length of v as Kafka's zigzag varint.
func varintLen(v int) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for ; u >= 0x80; u >>= 7 {
		n++
	}
	return n
}

// unavailableProducer are the producer-metrics Java prints and no franz-go
// hook gives (see ProducerMetrics): printed as NaN, Java's text for a
// metric without a value.
var unavailableProducer = []string{
	"record-queue-time-avg", "record-queue-time-max", "record-retry-total", "record-retry-rate",
	"select-total", "select-rate", "io-wait-time-ns-avg", "io-wait-time-ns-total", "io-wait-ratio",
	"io-time-ns-avg", "io-time-ns-total", "io-ratio",
	"successful-authentication-total", "successful-authentication-rate", "successful-authentication-no-reauth-total",
	"failed-authentication-total", "failed-authentication-rate",
	"successful-reauthentication-total", "successful-reauthentication-rate",
	"failed-reauthentication-total", "failed-reauthentication-rate",
	"reauthentication-latency-avg", "reauthentication-latency-max",
	"flush-time-ns-total", "txn-init-time-ns-total", "txn-begin-time-ns-total", "txn-send-offsets-time-ns-total",
	"txn-commit-time-ns-total", "txn-abort-time-ns-total",
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
		t.add(g, "buffer-available-bytes", float64(m.bufferBytes-max(m.bufBytes.Load(), 0)))
		wait := m.waitNs.Load()
		t.add(g, "bufferpool-wait-time-ns-total", float64(wait))
		t.add(g, "bufferpool-wait-ratio", sn.rate(wait)/1e9)
	}
	t.add(g, "waiting-threads", float64(m.waiting.Load()))
	t.addTotal(sn, g, "buffer-exhausted", m.exhausted.Load())
	avg, maximum = m.sizes.avgMax(1)
	t.addAvgMax(g, "record-size", avg, maximum)
	t.add(g, "requests-in-flight", float64(max(m.inFlight.Load(), 0)))
	t.addTotal(sn, g, "batch-split", 0)
	t.add(g, "metadata-wait-time-ns-total", 0.0)
	for _, name := range unavailableProducer {
		t.add(g, name, math.NaN())
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
		t.add(tg, "record-retry-total", math.NaN(), tag)
		t.add(tg, "record-retry-rate", math.NaN(), tag)
	}
	t.addTotal(sn, g, "record-send", sent)
	t.addTotal(sn, g, "record-error", errs)
	t.add(g, "records-per-request-avg", ratio(float64(sent), float64(sn.total.keyWrites.Load())))
	return t.done()
}
