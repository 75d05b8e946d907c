package engine

import (
	"bytes"
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

const metricsRecords = 1000

// metricsCluster starts a 3-broker in-process Kafka with topic "m" (6
// partitions), so requests spread over several brokers.
func metricsCluster(t *testing.T) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(6, "m"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// batchesDone is a hook that closes done once n records were reported
// written. Installed after a ProducerMetrics, it tells when kgo's
// asynchronous OnProduceBatchWritten calls have reached the collector too:
// kgo calls the hooks in order for each request's batches.
type batchesDone struct {
	n     int64
	count atomic.Int64
	done  chan struct{}
}

func (b *batchesDone) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.ProduceBatchMetrics) {
	if b.count.Add(int64(m.NumRecords)) == b.n {
		close(b.done)
	}
}

// produceRecords produces metricsRecords 100-byte records to "m" with opts
// and closes the client.
func produceRecords(t *testing.T, seeds []string, opts ...kgo.Opt) {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("m"), kgo.ProducerLinger(time.Millisecond)}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := t.Context()
	value := bytes.Repeat([]byte("x"), 100)
	for range metricsRecords {
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Error(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func metricFloat(t *testing.T, got map[string]any, key string) float64 {
	t.Helper()
	v, ok := got[key].(float64)
	if !ok || math.IsNaN(v) {
		t.Fatalf("%s = %#v, want a number", key, got[key])
	}
	return v
}

func TestProducerMetricsKfake(t *testing.T) {
	t.Parallel()
	seeds := metricsCluster(t)
	m := NewProducerMetrics("perf-producer-1", "test", 32<<20)
	done := &batchesDone{n: metricsRecords, done: make(chan struct{})}
	produceRecords(t, seeds, m.Hooks(), kgo.WithHooks(done))
	select {
	case <-done.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("batch hooks reported %d of %d records", done.count.Load(), metricsRecords)
	}

	ms := m.Metrics(time.Now())
	got := byKey(t, ms)
	const c = "{client-id=perf-producer-1}"
	const g = "producer-metrics:"
	f := func(k string) float64 { return metricFloat(t, got, k) }

	if v := f(g + "record-send-total:" + c); v != metricsRecords {
		t.Errorf("record-send-total = %v, want %d", v, metricsRecords)
	}
	if v := f("producer-topic-metrics:record-send-total:{client-id=perf-producer-1, topic=m}"); v != metricsRecords {
		t.Errorf("topic record-send-total = %v, want %d", v, metricsRecords)
	}
	if v := f(g + "record-error-total:" + c); v != 0 {
		t.Errorf("record-error-total = %v, want 0", v)
	}

	// Every record went in a Produce request: records-per-request-avg
	// times the Produce requests written is the records sent.
	sn := m.snapshot(time.Now())
	produceReqs := float64(sn.total.keyWrites.Load())
	if rpr := f(g + "records-per-request-avg:" + c); math.Abs(rpr*produceReqs-metricsRecords) > 1e-6 {
		t.Errorf("records-per-request-avg %v × %v Produce requests != %d", rpr, produceReqs, metricsRecords)
	}
	requests := f(g + "request-total:" + c)
	if produceReqs < 1 || requests <= produceReqs { // plus ApiVersions, Metadata, InitProducerID
		t.Errorf("request-total = %v, Produce requests = %v", requests, produceReqs)
	}
	if out, avg := f(g+"outgoing-byte-total:"+c), f(g+"request-size-avg:"+c); math.Abs(out-avg*requests) > 1e-6*out {
		t.Errorf("outgoing-byte-total %v != request-size-avg %v × request-total %v", out, avg, requests)
	}

	// Each request carries at least one batch, each at least one record;
	// the topic's bytes are the batch bytes.
	batches := float64(m.batches.n.Load())
	if batches < produceReqs || batches > metricsRecords {
		t.Errorf("%v batches for %v Produce requests", batches, produceReqs)
	}
	avg, maxSize := f(g+"batch-size-avg:"+c), f(g+"batch-size-max:"+c)
	if byteTotal := f("producer-topic-metrics:byte-total:{client-id=perf-producer-1, topic=m}"); math.Abs(byteTotal-avg*batches) > 1e-6*byteTotal {
		t.Errorf("byte-total %v != batch-size-avg %v × %v batches", byteTotal, avg, batches)
	}
	if avg <= 0 || maxSize < avg {
		t.Errorf("batch-size avg %v max %v", avg, maxSize)
	}
	if lat, latMax := f(g+"request-latency-avg:"+c), f(g+"request-latency-max:"+c); lat <= 0 || latMax < lat {
		t.Errorf("request-latency avg %v max %v", lat, latMax)
	}
	if r := f(g + "compression-rate-avg:" + c); r <= 0 || r > 1.1 {
		t.Errorf("compression-rate-avg = %v", r)
	}
	created, closed := f(g+"connection-creation-total:"+c), f(g+"connection-close-total:"+c)
	if created < 1 || f(g+"connection-count:"+c) != created-closed {
		t.Errorf("connections: %v created, %v closed, count %v", created, closed, got[g+"connection-count:"+c])
	}
	// After the flush: nothing in flight, buffered or waiting; every record
	// 100 bytes, 186 in Java's estimate (61 + 21 + 1 + 2 + 100 + 1).
	for k, want := range map[string]float64{"requests-in-flight": 0, "waiting-threads": 0, "buffer-available-bytes": 32 << 20,
		"record-size-avg": 186, "record-size-max": 186, "buffer-exhausted-total": 0} {
		if v := f(g + k + ":" + c); v != want {
			t.Errorf("%s = %v, want %v", k, v, want)
		}
	}
	if m.maxRecords <= 0 {
		t.Errorf("the client's record limit read as %d, want franz-go's default", m.maxRecords)
	}
	checkCount(t, got, "perf-producer-1")

	// The row --print-metrics prints (its format is compat's to test).
	if v := f(g + "record-send-total:" + c); v != 1000 {
		t.Errorf("record-send-total = %v, want 1000", v)
	}
}

func TestConsumerMetricsKfake(t *testing.T) {
	t.Parallel()
	seeds := metricsCluster(t)
	produceRecords(t, seeds)

	m := NewConsumerMetrics("perf-consumer-1", "test")
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics("m"), kgo.FetchMaxWait(50*time.Millisecond), m.Hooks())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	polled := 0
	for polled < metricsRecords {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("after %d records: %v", polled, err)
		}
		polled += fs.NumRecords()
	}
	cl.Close()

	got := byKey(t, m.Metrics(time.Now()))
	const c = "{client-id=perf-consumer-1}"
	const g = "consumer-fetch-manager-metrics:"
	f := func(k string) float64 { return metricFloat(t, got, k) }

	// kgo reports each batch as it decodes it, before its records can be
	// polled, and the topic holds no more than was polled.
	if v := f(g + "records-consumed-total:" + c); v != metricsRecords {
		t.Errorf("records-consumed-total = %v, want %d", v, metricsRecords)
	}
	if v := f(g + "records-consumed-total:{client-id=perf-consumer-1, topic=m}"); v != metricsRecords {
		t.Errorf("topic records-consumed-total = %v, want %d", v, metricsRecords)
	}
	fetches := f(g + "fetch-total:" + c)
	if rpr := f(g + "records-per-request-avg:" + c); fetches < 1 || math.Abs(rpr*fetches-metricsRecords) > 1e-6 {
		t.Errorf("records-per-request-avg %v × fetch-total %v != %d", rpr, fetches, metricsRecords)
	}
	// The batches (compressed: kgo's default is snappy) came in the Fetch
	// responses.
	avg, maxSize := f(g+"fetch-size-avg:"+c), f(g+"fetch-size-max:"+c)
	if b := f(g + "bytes-consumed-total:" + c); b <= 0 || b > avg*fetches {
		t.Errorf("bytes-consumed-total = %v, Fetch responses %v × %v bytes", b, fetches, avg)
	}
	if avg <= 0 || maxSize < avg {
		t.Errorf("fetch-size avg %v max %v", avg, maxSize)
	}
	if lat, latMax := f(g+"fetch-latency-avg:"+c), f(g+"fetch-latency-max:"+c); lat <= 0 || latMax < lat {
		t.Errorf("fetch-latency avg %v max %v", lat, latMax)
	}
	if req := f("consumer-metrics:request-total:" + c); req < fetches {
		t.Errorf("request-total %v < fetch-total %v", req, fetches)
	}
	checkCount(t, got, "perf-consumer-1")
}
