// Command bare is the plainest franz-go producer and consumer loop, for
// the side-by-side benchmarks (bench/producer.sh, bench/consumer.sh): what
// kbench's engines cost is what they take beyond this.
//
//	bare produce -bootstrap B -topic T -records N -size S [-acks all] [-batch-size 16384] [-linger-ms 5] [-compression none] [-idempotence=true] [-max-in-flight 5]
//	bare consume -bootstrap B -topic T -records N [-max-poll-records 500]
//
// It prints one line: "N records, S s, R records/s".
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "produce" && os.Args[1] != "consume") {
		fmt.Fprintln(os.Stderr, "usage: bare produce|consume -bootstrap B -topic T -records N [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	bootstrap := fs.String("bootstrap", "127.0.0.1:9092", "bootstrap servers, comma-separated")
	topic := fs.String("topic", "", "topic")
	records := fs.Int64("records", 1_000_000, "records to produce or consume")
	size := fs.Int("size", 100, "value size in bytes (produce)")
	acks := fs.String("acks", "all", "all, 1 or 0 (produce)")
	batch := fs.Int("batch-size", 16384, "batch.size in bytes (produce)")
	linger := fs.Int("linger-ms", 5, "linger.ms (produce)")
	compression := fs.String("compression", "none", "none, gzip, snappy, lz4 or zstd (produce)")
	idempotence := fs.Bool("idempotence", true, "enable.idempotence (produce; off unless acks=all)")
	buffer := fs.Int64("buffer-memory", 32<<20, "buffer.memory in bytes (produce)")
	inflight := fs.Int("max-in-flight", 5, "max.in.flight.requests.per.connection when idempotence is off (produce)")
	maxPoll := fs.Int("max-poll-records", 500, "records per poll, as Java's max.poll.records (consume; 0: whole fetches)")
	_ = fs.Parse(os.Args[2:])
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(*bootstrap, ",")...)}
	var err error
	if os.Args[1] == "produce" {
		err = produce(opts, *topic, *records, *size, *acks, *batch, *linger, *compression, *idempotence, *buffer, *inflight)
	} else {
		err = consume(opts, *topic, *records, *maxPoll)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(1)
	}
}

func produce(opts []kgo.Opt, topic string, records int64, size int, acks string, batch, linger int, compression string, idempotence bool, buffer int64, inflight int) error {
	opts = append(opts, kgo.DefaultProduceTopic(topic), kgo.ProducerBatchMaxBytes(int32(batch)),
		kgo.ProducerLinger(time.Duration(linger)*time.Millisecond),
		kgo.MaxBufferedBytes(int(buffer)), kgo.MaxBufferedRecords(int(buffer)),
		// The partitioner every other client here uses for records without a
		// key (Java's built-in, KIP-794: a new partition every batch.size
		// bytes), so that batches are equally full; franz-go's default
		// switches per batch, whatever its size.
		kgo.RecordPartitioner(kgo.UniformBytesPartitioner(batch, true, true, nil)))
	switch acks {
	case "all", "-1":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(inflight))
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(inflight))
	default:
		return fmt.Errorf("-acks %q: want all, 1 or 0", acks)
	}
	if !idempotence && (acks == "all" || acks == "-1") {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(inflight))
	}
	codec := map[string]kgo.CompressionCodec{"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(),
		"snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}
	c, ok := codec[compression]
	if !ok {
		return fmt.Errorf("-compression %q: want none, gzip, snappy, lz4 or zstd", compression)
	}
	opts = append(opts, kgo.ProducerBatchCompression(c))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	// Distinct windows of a buffer of random letters, as kbench's values,
	// filled as cheaply as kbench fills its own (four letters per random
	// number), so that start-up costs the same in both.
	buf := make([]byte, 32<<20+size)
	for i := 0; i < len(buf); i += 4 {
		x := rand.Uint64()
		for j := 0; j < 4 && i+j < len(buf); j++ {
			buf[i+j] = byte('A' + (uint32(x>>(16*j))&0xffff)*26>>16)
		}
	}
	var acked, failed atomic.Int64
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
			return
		}
		acked.Add(1)
	}
	ctx := context.Background()
	start := time.Now()
	off := 0
	for i := int64(0); i < records; i++ {
		cl.Produce(ctx, &kgo.Record{Value: buf[off : off+size]}, promise)
		if off += size; off > 32<<20 {
			off = 0
		}
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("%d records, %.3f s, %.1f records/s, %d failed\n", acked.Load(), secs, float64(acked.Load())/secs, failed.Load())
	if failed.Load() > 0 {
		return fmt.Errorf("%d records failed", failed.Load())
	}
	return nil
}

// consume polls maxPoll records at a time, as kbench and the Java consumer
// do by default (max.poll.records 500): franz-go fetches from a broker
// again only once its last fetch is polled empty, so the poll size is a
// setting the comparison must share.
func consume(opts []kgo.Opt, topic string, records int64, maxPoll int) error {
	cl, err := kgo.NewClient(append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var got, bytes int64
	var start time.Time
	for got < records {
		fs := cl.PollRecords(ctx, maxPoll) // 0 or less: whole fetches
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read %d of %d records: %w", got, records, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if got == 0 {
				start = time.Now() // from the first record, as consumer-perf-test
			}
			got++
			bytes += int64(len(r.Value))
		})
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("%d records, %.3f s, %.1f records/s, %d bytes\n", got, secs, float64(got)/secs, bytes)
	return nil
}
