package kafkaconf

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kbench/kbench/internal/userr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Record sizes as the Java client estimates them (DefaultRecordBatch and
// DefaultRecord): the size RecordTooLargeException reports.
const (
	javaBatchOverhead  = 61 // RECORD_BATCH_OVERHEAD
	javaRecordOverhead = 21 // MAX_RECORD_OVERHEAD
	// recordSlack covers what kgo counts beyond Java's estimate for a batch
	// holding one record (its 65-66 byte header, 5-byte varints).
	recordSlack = 16
	// requestSlack bounds a produce request's bytes besides one batch
	// (header, acks, timeout, a 249-byte topic name), on top of the client
	// and transactional ids.
	requestSlack = 512
)

// Opts returns the kgo options for this producer. maxRecordBytes is the
// largest key+value (plus headers) the run will send, 0 if unknown.
//
// kgo fails a record larger than its batch limit, while the Java client sends
// such a record alone in its own batch. So with maxRecordBytes > 0 the batch
// limit is raised to fit it; with 0 records must fit in batch.size. A record
// that cannot fit under max.request.size (or buffer.memory) is a user error
// with the Java client's RecordTooLargeException text.
func (p *Producer) Opts(maxRecordBytes int) ([]kgo.Opt, error) {
	if maxRecordBytes < 0 {
		return nil, fmt.Errorf("producer options: negative maxRecordBytes %d", maxRecordBytes)
	}
	if errs := p.check(); len(errs) > 0 {
		return nil, userr.New(errors.Join(errs...))
	}
	batchMax, writeMax, err := p.batchLimits(maxRecordBytes)
	if err != nil {
		return nil, err
	}
	clientID := p.clientID()
	// kgo adds this overhead to a produce request's own timeout for the
	// connection deadline, and uses it alone for requests without one.
	// Capping it at kgo's default 10s keeps a stalled broker's produce
	// deadline near Java's request.timeout.ms.
	opts := p.clientOpts(clientID, min(p.RequestTimeout, 10*time.Second))
	opts = append(opts,
		kgo.AllowAutoTopicCreation(), // the Java producer's metadata requests allow it
		kgo.RequiredAcks(p.acks()),
		kgo.ProducerBatchMaxBytes(int32(batchMax)),
		kgo.BrokerMaxWriteBytes(int32(writeMax)),
		kgo.ProducerLinger(p.Linger),
		kgo.ProducerBatchCompression(p.codec()),
		kgo.MaxBufferedBytes(int(min(p.BufferMemory, math.MaxInt))),
		// Java bounds only bytes; kgo also caps records (50,000 by
		// default), which would throttle small records long before
		// buffer.memory does. A Java record takes at least ~8 bytes of
		// buffer, so this cap never binds before Java's limit would.
		kgo.MaxBufferedRecords(int(max(1, min(p.BufferMemory/8, math.MaxInt)))),
		kgo.RecordPartitioner(p.partitioner()),
		kgo.ProduceRequestTimeout(p.RequestTimeout),
		kgo.RecordRetries(p.Retries),
		kgo.RecordDeliveryTimeout(p.DeliveryTimeout),
		// Java retries UNKNOWN_TOPIC_OR_PARTITION until
		// delivery.timeout.ms; kgo fails the records after 4 tries. A new
		// topic's leaders may answer so for a moment after every
		// broker's metadata lists it: a fresh 3-broker cluster failed all
		// 200,000 records of a producer-perf-test that way.
		kgo.UnknownTopicRetries(-1),
	)
	if !p.Idempotence {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(p.MaxInFlight))
	}
	if p.TransactionalID != "" {
		opts = append(opts, kgo.TransactionalID(p.TransactionalID), kgo.TransactionTimeout(p.TransactionTimeout))
	}
	return opts, nil
}

// SerializedSize is the Java client's upper-bound estimate of a record
// batch holding one unkeyed record of n bytes and no headers; the size its
// RecordTooLargeException reports.
func serializedSize(n int) int {
	return javaBatchOverhead + javaRecordOverhead + 1 + varintLen(n) + n + 1 // null key, value, no headers
}

func varintLen(n int) int {
	l := 1
	for u := uint64(n) << 1; u >= 0x80; u >>= 7 { // zigzag, as Kafka's varints
		l++
	}
	return l
}

// batchLimits returns kgo's batch limit and broker write limit.
func (p *Producer) batchLimits(maxRecordBytes int) (batchMax, writeMax int, err error) {
	batchMax = max(p.BatchSize, kgoMinBatch)
	if maxRecordBytes > 0 {
		size := serializedSize(maxRecordBytes)
		var errs []error
		if size > p.MaxRequestSize {
			errs = append(errs, propError(p.prop("max.request.size", fmt.Sprint(p.MaxRequestSize)),
				fmt.Sprintf("The message is %d bytes when serialized which is larger than %d, which is the value of the max.request.size configuration.", size, p.MaxRequestSize),
				fmt.Sprintf("%d or more, or send records of at most %d bytes", size, p.MaxRequestSize-(size-maxRecordBytes))))
		}
		if int64(size) > p.BufferMemory {
			errs = append(errs, propError(p.prop("buffer.memory", fmt.Sprint(p.BufferMemory)),
				fmt.Sprintf("The message is %d bytes when serialized which is larger than the total memory buffer you have configured with the buffer.memory configuration.", size),
				fmt.Sprintf("%d or more", size)))
		}
		if len(errs) > 0 {
			return 0, 0, userr.New(errors.Join(errs...))
		}
		batchMax = max(batchMax, size+recordSlack)
	}
	overhead := requestSlack + len(p.clientID()) + len(p.TransactionalID)
	batchMax = min(batchMax, kgoMaxBatch-overhead)
	// Java lets one batch exceed max.request.size; kgo needs room for it.
	writeMax = min(max(p.MaxRequestSize, batchMax+overhead), kgoMaxBatch)
	return batchMax, writeMax, nil
}

func (p *Producer) acks() kgo.Acks {
	switch p.Acks {
	case "0":
		return kgo.NoAck()
	case "1":
		return kgo.LeaderAck()
	}
	return kgo.AllISRAcks()
}

// codec sets exactly one codec: kgo's default preference is [snappy, none],
// and the Java default is none.
func (p *Producer) codec() kgo.CompressionCodec {
	switch p.Compression {
	case "gzip":
		return kgo.GzipCompression().WithLevel(p.GzipLevel) // same scale; -1 is the default
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression().WithLevel(lz4Level(p.LZ4Level))
	case "zstd":
		return kgo.ZstdCompression().WithLevel(zstdLevel(p.ZstdLevel))
	}
	return kgo.NoCompression()
}

// lz4Level maps Java's level to pierrec/lz4's: Java's default 9 uses its fast
// compressor (pierrec's Fast, 0), other levels its high compressor, which
// pierrec offers as Level1..Level9 (1<<9 .. 1<<17).
func lz4Level(java int) int {
	if java == 9 {
		return 0
	}
	return 1 << (8 + min(max(java, 1), 9))
}

// zstdLevel maps a zstd level to klauspost/compress's encoder levels as its
// EncoderLevelFromZstd does: fastest, default (Java's 3), better, best.
func zstdLevel(java int) int {
	switch {
	case java < 3:
		return 1
	case java < 6:
		return 2
	case java < 10:
		return 3
	}
	return 4
}

func (p *Producer) partitioner() kgo.Partitioner {
	switch p.PartitionerClass {
	case roundRobinPartitioner:
		return kgo.RoundRobinPartitioner()
	case defaultPartitioner:
		return kgo.StickyKeyPartitioner(nil)
	case uniformStickyPartitioner:
		return kgo.StickyPartitioner()
	}
	// KIP-794 as in Java 4.x: switch partitions every batch.size bytes; a nil
	// hasher is Java's murmur2 with the sign bit masked.
	return kgo.UniformBytesPartitioner(p.BatchSize, p.PartitionerAdaptive, !p.PartitionerIgnoreKeys, nil)
}
