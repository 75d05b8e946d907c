package produce

import (
	"context"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/testkafka"
)

// BenchmarkProduce measures kbench's producer engine against a bare
// franz-go produce loop with the same settings on the same real broker: the
// difference in CPU per record is kbench's own cost (measurement, payloads,
// pacing). In-process, for profiling; bench/producer.sh compares whole
// processes side by side:
//
//	KBENCH_TEST_BOOTSTRAP=127.0.0.1:9092 go test -run '^$' -bench '^BenchmarkProduce$' -benchtime 2000000x ./internal/workload/
//
// Without KBENCH_TEST_BOOTSTRAP it starts a local broker. KBENCH_BENCH_SIZE
// (default 100), KBENCH_BENCH_ACKS (default 1) and KBENCH_BENCH_PARTITIONS
// (default 1) set the record size, acks and the topic's partitions; every
// other property is the Java client's default.
func BenchmarkProduce(b *testing.B) {
	bootstrap := testkafka.Bootstrap(b)
	size := benchEnvInt(b, "KBENCH_BENCH_SIZE", 100)
	partitions := int32(benchEnvInt(b, "KBENCH_BENCH_PARTITIONS", 1))
	acks := "1"
	if a := os.Getenv("KBENCH_BENCH_ACKS"); a != "" {
		acks = a
	}
	pc, _, err := kafkaconf.ParseProducer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "bench"},
		{Key: "acks", Value: acks, Source: "bench"},
	})
	if err != nil {
		b.Fatal(err)
	}
	opts, err := pc.Opts(size)
	if err != nil {
		b.Fatal(err)
	}
	topic := "bench-produce-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx := context.Background()
	if _, err := kadmin.EnsureTopic(ctx, opts, kadmin.TopicSpec{Name: topic, Partitions: partitions, ReplicationFactor: -1}); err != nil {
		b.Fatal(err)
	}
	b.Run("bare", func(b *testing.B) { benchBare(b, opts, topic, size) })
	b.Run("kbench", func(b *testing.B) { benchKbench(b, opts, topic, size) })
}

// benchEnvInt reads a positive whole number from the environment, def when
// unset; anything else fails the benchmark.
func benchEnvInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive whole number", name, s)
	}
	return n
}

// benchBare is the loop a user would write by hand: a fresh record per
// send, one value, a promise that only counts failures.
func benchBare(b *testing.B, opts []kgo.Opt, topic string, size int) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	value := make([]byte, size)
	for i := range value {
		value[i] = 'A' + byte(i%26)
	}
	var failed atomic.Int64
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	cpu0, start := measure.ProcessCPU(), time.Now()
	for i := 0; i < b.N; i++ {
		cl.Produce(ctx, &kgo.Record{Topic: topic, Value: value}, promise)
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	report(b, b.N, time.Since(start), measure.ProcessCPU()-cpu0)
	if failed.Load() > 0 {
		b.Fatalf("%d records failed", failed.Load())
	}
}

func benchKbench(b *testing.B, opts []kgo.Opt, topic string, size int) {
	values, err := payload.Random(size, 1)
	if err != nil {
		b.Fatal(err)
	}
	spec := ProducerSpec{
		Topic:      topic,
		Records:    int64(b.N),
		Values:     values,
		ClientOpts: func(int) []kgo.Opt { return opts },
		Interval:   time.Hour, // no progress lines inside the measurement
	}
	b.ResetTimer()
	cpu0, start := measure.ProcessCPU(), time.Now()
	res, err := RunProducer(context.Background(), spec)
	if err != nil {
		b.Fatal(err)
	}
	report(b, b.N, time.Since(start), measure.ProcessCPU()-cpu0)
	if res.Failed > 0 || res.Acked != int64(b.N) || res.Latency.Count() != int64(b.N) {
		b.Fatalf("acked %d failed %d latencies %d of %d", res.Acked, res.Failed, res.Latency.Count(), b.N)
	}
}

func report(b *testing.B, n int, elapsed, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/record")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
}

// BenchmarkRecordOverhead measures kbench's own per-record work in the
// producer (payload pick, slot pool, clock reads, histogram, interval
// window): the real prepare and promise code, without the network. Divided
// by a bare franz-go loop's CPU per record (BenchmarkProduce/bare), it is
// kbench's overhead, free of the broker noise that an A/B run carries.
// Run it with BenchmarkBareRecordWork.
func BenchmarkRecordOverhead(b *testing.B) {
	values, err := payload.Random(100, 1)
	if err != nil {
		b.Fatal(err)
	}
	c := &producerClient{
		start:   time.Now(),
		topic:   "t",
		values:  values,
		hists:   newRunHists(true, false),
		seenErr: map[string]bool{},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.promise(c.prepare(int64(i), false), nil)
	}
	b.StopTimer()
	c.publish(time.Since(c.start))
	if c.acked != int64(b.N) || c.hists.lat.Count() != int64(b.N) {
		b.Fatalf("acked %d, histogram %d, want %d", c.acked, c.hists.lat.Count(), b.N)
	}
}

// BenchmarkRecordValues is BenchmarkRecordOverhead with the virtual-users
// study's JSON template (bench/template.sh's) against fixed-size values of
// its mean rendered size (153 B): what rendering adds to kbench's
// per-record work, without the network.
func BenchmarkRecordValues(b *testing.B) {
	tmpl := studyValues(b)
	fixed, err := payload.Random(153, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name   string
		values payload.Source
	}{{"fixed-size", fixed}, {"template", tmpl}} {
		b.Run(v.name, func(b *testing.B) {
			c := &producerClient{
				start:   time.Now(),
				topic:   "t",
				values:  v.values.Clone(1),
				hists:   newRunHists(true, false),
				seenErr: map[string]bool{},
			}
			c.render, _ = c.values.(payload.Renderer)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := measure.ProcessCPU()
			for i := 0; i < b.N; i++ {
				c.promise(c.prepare(int64(i), false), nil)
			}
			b.ReportMetric(float64((measure.ProcessCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// studyValues are the virtual-users study's JSON message (bench/template.sh's).
func studyValues(tb testing.TB) payload.Source {
	gen := func(g payload.Generator) payload.Template {
		return payload.Template{Kind: payload.KindGenerator, Gen: g}
	}
	tmpl, err := payload.CompileTemplate(payload.Template{Kind: payload.KindObject, Fields: []payload.TemplateField{
		{Name: "id", Value: gen(payload.Generator{Type: "uuid"})},
		{Name: "name", Value: gen(payload.Generator{Type: "constant", Values: []string{`"name"`}})},
		{Name: "description", Value: gen(payload.Generator{Type: "random_string", Length: 40})},
		{Name: "value", Value: gen(payload.Generator{Type: "random_int", Min: 0, Max: 100})},
		{Name: "timestamp", Value: gen(payload.Generator{Type: "now", Format: "epoch_millis"})},
	}}, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return tmpl
}

// bareSink keeps benchmark records on the heap, as Produce makes them escape.
var bareSink *kgo.Record

// BenchmarkBareRecordWork is a bare loop's own per-record work outside
// franz-go's produce path, the counterpart of BenchmarkRecordOverhead: a
// fresh record, the clock read franz-go makes for a record without a
// timestamp (kbench's records carry one, so franz-go skips it), and a
// promise that counts failures.
func BenchmarkBareRecordWork(b *testing.B) {
	value := make([]byte, 100)
	var failed atomic.Int64
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := &kgo.Record{Topic: "t", Value: value}
		r.Timestamp = time.Now()
		promise(r, nil)
		bareSink = r
	}
}

// promiseSink keeps the callback as franz-go's Produce does, so that a
// callback built per call escapes to the heap here as it does there.
var promiseSink func(*kgo.Record, error)

// TestSendPathAllocations: regression: Produce was passed c.promise, a
// method value allocated on every record (one allocation per record on
// the hot path); the client now makes it once. The per-record work of
// kbench's own code (prepare, the callback handed to Produce, promise)
// must allocate nothing.
//
// A template's values are rendered into the slabs' own buffers, reused
// with them: no allocation per record either (they allocated one each).
func TestSendPathAllocations(t *testing.T) {
	fixed, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name   string
		values payload.Source
	}{{"fixed-size", fixed}, {"template", studyValues(t)}} {
		t.Run(v.name, func(t *testing.T) {
			c := &producerClient{
				start:   time.Now(),
				topic:   "t",
				values:  v.values,
				hists:   newRunHists(true, false),
				seenErr: map[string]bool{},
			}
			c.render, _ = c.values.(payload.Renderer)
			c.promiseFn = c.promise
			i := int64(0)
			allocs := testing.AllocsPerRun(10000, func() {
				r := c.prepare(i, false)
				i++
				promiseSink = c.promiseFn
				promiseSink(r, nil)
			})
			if allocs != 0 {
				t.Fatalf("%.2f allocations per record on the send path, want 0", allocs)
			}
		})
	}
}
