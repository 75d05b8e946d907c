package kafkaconf

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

// Producer is the Java producer's effective configuration: defaults of the
// Apache Kafka 4.x client, the user's properties, and Java's own adjustments
// (idempotence silently off for acks=0/1, delivery.timeout.ms raised to
// linger.ms + request.timeout.ms). Opts turns it into kgo options.
type Producer struct {
	Common

	Acks            string        // acks: "0", "1" or "all" (-1 is stored as "all")
	BatchSize       int           // batch.size in bytes; 0 disables batching in Java
	Linger          time.Duration // linger.ms
	BufferMemory    int64         // buffer.memory in bytes
	Compression     string        // compression.type: none, gzip, snappy, lz4, zstd
	GzipLevel       int           // compression.gzip.level: -1 or 1..9
	LZ4Level        int           // compression.lz4.level: 1..17
	ZstdLevel       int           // compression.zstd.level: -131072..22
	MaxInFlight     int           // max.in.flight.requests.per.connection
	Idempotence     bool          // enable.idempotence, after Java's implicit disabling
	Retries         int           // retries
	DeliveryTimeout time.Duration // delivery.timeout.ms
	MaxRequestSize  int           // max.request.size in bytes

	TransactionalID    string        // transactional.id; "" for none
	TransactionTimeout time.Duration // transaction.timeout.ms

	// PartitionerClass is partitioner.class, "" for the built-in KIP-794
	// uniform sticky partitioner that the next three settings tune.
	PartitionerClass               string
	PartitionerIgnoreKeys          bool          // partitioner.ignore.keys
	PartitionerAdaptive            bool          // partitioner.adaptive.partitioning.enable
	PartitionerAvailabilityTimeout time.Duration // partitioner.availability.timeout.ms
}

// Java partitioner classes kbench knows.
const (
	roundRobinPartitioner    = "org.apache.kafka.clients.producer.RoundRobinPartitioner"
	defaultPartitioner       = "org.apache.kafka.clients.producer.internals.DefaultPartitioner"
	uniformStickyPartitioner = "org.apache.kafka.clients.producer.UniformStickyPartitioner"

	maxInFlightIdempotent = 5 // Java's MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE
	kgoMaxBatch           = 1 << 30
	kgoMinBatch           = 512
	// brokerMaxMessageBytes is the broker's default message.max.bytes
	// since Kafka 0.11 (1 MiB + 12), Kafka 4's too: a record batch of up
	// to 1 MiB (OMB's drivers' batch.size) fits. 1000012 was the default
	// before.
	brokerMaxMessageBytes = 1048588
)

func producerProps() []prop[Producer] {
	common := func(p *Producer) *Common { return &p.Common }
	c := commonProps()
	ps := lift(c[:1], common) // bootstrap.servers first
	ps = append(ps, []prop[Producer]{
		clientIDProp(common, (*Producer).clientID, "kgo.ClientID; when unset, Java's generated producer-1 (producer-<transactional.id> if transactional)"),
		acksProp(),
		intProp("batch.size", "16384", 0, kgoMaxBatch, func(p *Producer) *int { return &p.BatchSize },
			"kgo.ProducerBatchMaxBytes(max(batch.size, 512, largest record + overhead)) and the sticky partitioner's switch size"),
		msProp("linger.ms", "5", 0, 60000, func(p *Producer) *time.Duration { return &p.Linger },
			"kgo.ProducerLinger (franz-go allows at most 1 min)"),
		intProp("buffer.memory", "33554432", 1, math.MaxInt64, func(p *Producer) *int64 { return &p.BufferMemory },
			"kgo.MaxBufferedBytes, and kgo.MaxBufferedRecords(buffer.memory/8) so the record cap never binds first"),
		enumProp("compression.type", "none", false, []string{"none", "gzip", "snappy", "lz4", "zstd"},
			func(p *Producer) *string { return &p.Compression },
			"kgo.ProducerBatchCompression with that one codec (franz-go's own default is snappy)"),
		gzipLevelProp(),
		intProp("compression.lz4.level", "9", 1, 17, func(p *Producer) *int { return &p.LZ4Level },
			"9 is Java's fast compressor (franz-go's default); other levels map to lz4 levels 1 to 9"),
		intProp("compression.zstd.level", "3", -131072, 22, func(p *Producer) *int { return &p.ZstdLevel },
			"mapped to the nearest of franz-go's four zstd levels (3 is its default)"),
		intProp("max.in.flight.requests.per.connection", "5", 1, math.MaxInt32, func(p *Producer) *int { return &p.MaxInFlight },
			"kgo.MaxProduceRequestsInflightPerBroker when idempotence is off; franz-go always uses 5 with idempotence"),
		boolProp("enable.idempotence", "true", func(p *Producer) *bool { return &p.Idempotence },
			"false adds kgo.DisableIdempotentWrite; silently off if not set and acks is not all or retries is 0, as in Java"),
		intProp("retries", "2147483647", 0, math.MaxInt32, func(p *Producer) *int { return &p.Retries },
			"kgo.RecordRetries (same count: 0 means one attempt)"),
		msProp("delivery.timeout.ms", "120000", 0, math.MaxInt32, func(p *Producer) *time.Duration { return &p.DeliveryTimeout },
			"kgo.RecordDeliveryTimeout; at least linger.ms + request.timeout.ms, as in Java"),
		msProp("request.timeout.ms", "30000", 100, math.MaxInt32, func(p *Producer) *time.Duration { return &p.RequestTimeout },
			"kgo.ProduceRequestTimeout, and kgo.RequestTimeoutOverhead(min(request.timeout.ms, 10 s))"),
		intProp("max.request.size", "1048576", 1024, kgoMaxBatch, func(p *Producer) *int { return &p.MaxRequestSize },
			"kgo.BrokerMaxWriteBytes; a record larger than this fails as in Java"),
		strProp("transactional.id", 16382, true, func(p *Producer) *string { return &p.TransactionalID },
			"kgo.TransactionalID; requires idempotence"),
		msProp("transaction.timeout.ms", "60000", 1, math.MaxInt32, func(p *Producer) *time.Duration { return &p.TransactionTimeout },
			"kgo.TransactionTimeout (franz-go's own default is 40 s)"),
		partitionerClassProp(),
		boolProp("partitioner.ignore.keys", "false", func(p *Producer) *bool { return &p.PartitionerIgnoreKeys },
			"kgo.UniformBytesPartitioner(batch.size, adaptive, !ignore.keys, murmur2 as in Java)"),
		boolProp("partitioner.adaptive.partitioning.enable", "true", func(p *Producer) *bool { return &p.PartitionerAdaptive },
			"the adaptive flag of kgo.UniformBytesPartitioner"),
		msProp("partitioner.availability.timeout.ms", "0", 0, maxMillis, func(p *Producer) *time.Duration { return &p.PartitionerAvailabilityTimeout },
			"0 only: franz-go has no availability timeout; other values warn"),
	}...)
	ps = append(ps, lift(c[1:], common)...)
	return ps
}

// acksProp is acks: 0, 1, or all (-1 is all).
func acksProp() prop[Producer] {
	return prop[Producer]{
		key: "acks", def: "all", meaning: "kgo.RequiredAcks: 0 NoAck, 1 LeaderAck, all/-1 AllISRAcks",
		set: func(p *Producer, v string) error {
			s, err := parseEnum(v, false, "0", "1", "all", "-1")
			if s == "-1" {
				s = "all"
			}
			if err == nil {
				p.Acks = s
			}
			return err
		},
		get: func(p *Producer) string { return p.Acks },
	}
}

// gzipLevelProp is compression.gzip.level: -1 (the default) or 1 to 9.
func gzipLevelProp() prop[Producer] {
	return prop[Producer]{
		key: "compression.gzip.level", def: "-1", meaning: "gzip level, same scale as Go's compress/gzip",
		set: func(p *Producer, v string) error {
			n, err := parseInt(v, -1, 9)
			if err != nil || n == 0 {
				return &badValue{allowed: "-1 (default), 1 to 9"}
			}
			p.GzipLevel = int(n)
			return nil
		},
		get: func(p *Producer) string { return strconv.Itoa(p.GzipLevel) },
	}
}

// partitionerClassProp is partitioner.class: only the partitioners franz-go has an equivalent of.
func partitionerClassProp() prop[Producer] {
	return prop[Producer]{
		key:     "partitioner.class",
		meaning: "RoundRobinPartitioner: kgo.RoundRobinPartitioner; the removed DefaultPartitioner and UniformStickyPartitioner: their kgo equivalents, with a warning",
		set: func(p *Producer, v string) error {
			s, err := parseEnum(v, false, roundRobinPartitioner, defaultPartitioner, uniformStickyPartitioner)
			if err != nil {
				return &badValue{why: "kbench cannot load Java classes", allowed: roundRobinPartitioner + " (or unset for the default partitioner)"}
			}
			p.PartitionerClass = s
			return nil
		},
		get: func(p *Producer) string { return p.PartitionerClass },
	}
}

func producerNoEffect() map[string]string {
	m := commonNoEffect()
	m["key.serializer"] = "kbench sends the bytes it generates"
	m["value.serializer"] = "kbench sends the bytes it generates"
	m["max.block.ms"] = "kbench's producer waits for buffer space until the run ends"
	m["metadata.max.idle.ms"] = "franz-go keeps metadata of every topic it produced to"
	m["transaction.two.phase.commit.enable"] = "franz-go has no two-phase commit (KIP-939)"
	return m
}

// ProducerDefaults is the documented table of producer properties kbench
// maps, with their Java 4.x defaults.
func ProducerDefaults() []Default { return defaults(producerProps()) }

// ParseProducer applies props, later ones overriding earlier ones, on top
// of the Java 4.x producer defaults. Every invalid value is reported in one
// error (errors.Join, marked with userr), each naming the property, value,
// source and allowed values. Properties kbench does not apply come back as
// warnings. bootstrap.servers may be absent.
func ParseProducer(props []Prop) (*Producer, []Warning, error) {
	p := new(Producer)
	r := role{name: "producer", other: "consumer", noEffect: producerNoEffect(),
		otherKeys: append(only(keys(consumerProps()), keys(producerProps())), "key.deserializer", "value.deserializer")}
	warns, errs := parseProps(p, producerProps(), props, r, &p.Common)
	if len(errs) == 0 {
		var w []Warning
		w, errs = p.resolve()
		warns = append(warns, w...)
	}
	if len(errs) == 0 {
		errs = p.check()
	}
	warns = append(warns, p.checkCommon()...)
	if len(errs) > 0 {
		return nil, warns, userr.New(errors.Join(errs...))
	}
	return p, warns, nil
}

// resolve applies the Java producer's post-processing: idempotence is
// silently disabled by conflicting settings unless it was set explicitly, in
// which case they are errors; delivery.timeout.ms is raised to linger.ms +
// request.timeout.ms unless set explicitly.
func (p *Producer) resolve() (warns []Warning, errs []error) {
	explicitIdem := p.explicit("enable.idempotence")
	orDisable := " (or set enable.idempotence=false)"
	if p.Idempotence {
		disable := false
		if p.Retries == 0 {
			if explicitIdem {
				errs = append(errs, propError(p.prop("retries", "0"),
					"Must set retries to non-zero when using the idempotent producer.", "1 to 2147483647"+orDisable))
			}
			disable = true
		}
		if p.Acks != "all" {
			if explicitIdem {
				errs = append(errs, propError(p.prop("acks", p.Acks),
					"Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.", "all, -1"+orDisable))
			}
			disable = true
		}
		// Java 4.x rejects this even when idempotence is only on by default.
		if p.MaxInFlight > maxInFlightIdempotent {
			errs = append(errs, propError(p.prop("max.in.flight.requests.per.connection", strconv.Itoa(p.MaxInFlight)),
				fmt.Sprintf("To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is %d.", p.MaxInFlight),
				"1 to 5"+orDisable))
		}
		p.Idempotence = !disable
	}
	if min := p.Linger + p.RequestTimeout; p.DeliveryTimeout < min {
		if p.explicit("delivery.timeout.ms") {
			errs = append(errs, propError(p.prop("delivery.timeout.ms", millis(p.DeliveryTimeout)),
				fmt.Sprintf("delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms (%s + %s)", millis(p.Linger), millis(p.RequestTimeout)),
				rangeText(min.Milliseconds(), math.MaxInt32)))
		} else {
			warns = append(warns, Warning{Key: "delivery.timeout.ms", Source: "default",
				Message: fmt.Sprintf("delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms; as in Java, using %s", millis(min))})
			p.DeliveryTimeout = min
		}
	}
	return append(warns, p.approximations()...), errs
}

// approximations warns about settings franz-go honors only approximately.
func (p *Producer) approximations() (warns []Warning) {
	warn := func(key, msg string) {
		pr := p.prop(key, "")
		warns = append(warns, Warning{Key: key, Source: pr.Source, Message: msg})
	}
	if p.Idempotence && p.MaxInFlight < maxInFlightIdempotent && p.explicit("max.in.flight.requests.per.connection") {
		warn("max.in.flight.requests.per.connection", "franz-go always keeps up to 5 produce requests in flight per broker with idempotence on; set enable.idempotence=false to limit it")
	}
	if p.BatchSize < kgoMinBatch {
		warn("batch.size", "franz-go's smallest batch limit is 512 bytes, so batches of small records may hold several records (Java sends each record alone with batch.size=0)")
	}
	if p.BatchSize > brokerMaxMessageBytes {
		warn("batch.size", "above the broker's default message.max.bytes (1048588): unlike the Java client, franz-go does not split a batch the broker rejects as too large, so make sure the topic's max.message.bytes allows it")
	}
	switch p.PartitionerClass {
	case defaultPartitioner:
		warn("partitioner.class", "removed in Kafka 4.0; using kgo.StickyKeyPartitioner, which partitions as it did (murmur2 keys, sticky otherwise)")
	case uniformStickyPartitioner:
		warn("partitioner.class", "removed in Kafka 4.0; using kgo.StickyPartitioner, which ignores keys as it did")
	}
	if p.PartitionerAvailabilityTimeout > 0 {
		warn("partitioner.availability.timeout.ms", "franz-go's partitioner has no availability timeout (it already avoids backed-up partitions); ignored")
	}
	if p.Compression == "lz4" && p.LZ4Level > 9 {
		warn("compression.lz4.level", "franz-go's lz4 has levels 1 to 9; using 9, its highest")
	}
	return warns
}

// check returns the invariants kgo enforces, so that Opts fails with a user
// error instead of kgo.NewClient failing later. It is also run by Opts,
// because callers may change fields after parsing.
func (p *Producer) check() (errs []error) {
	if p.Idempotence && p.Acks != "all" {
		errs = append(errs, propError(p.prop("acks", p.Acks), "idempotence requires acks=all", "all, -1 (or set enable.idempotence=false)"))
	}
	if p.Idempotence && p.MaxInFlight > maxInFlightIdempotent {
		errs = append(errs, propError(p.prop("max.in.flight.requests.per.connection", strconv.Itoa(p.MaxInFlight)),
			"idempotence allows at most 5 in-flight requests", "1 to 5 (or set enable.idempotence=false)"))
	}
	if !p.Idempotence && p.MaxInFlight < 1 {
		errs = append(errs, propError(p.prop("max.in.flight.requests.per.connection", strconv.Itoa(p.MaxInFlight)), "invalid value", "1 or more"))
	}
	if p.TransactionalID != "" && !p.Idempotence {
		errs = append(errs, propError(p.prop("transactional.id", p.TransactionalID),
			"Cannot set a transactional.id without also enabling idempotence. "+p.whyNoIdempotence(),
			"enable.idempotence=true with acks=all and retries > 0"))
	}
	if p.DeliveryTimeout < time.Second {
		errs = append(errs, propError(p.prop("delivery.timeout.ms", millis(p.DeliveryTimeout)),
			"franz-go needs a delivery timeout of at least 1 s", rangeText(1000, math.MaxInt32)))
	}
	if p.DeliveryTimeout < p.Linger+p.RequestTimeout {
		errs = append(errs, propError(p.prop("delivery.timeout.ms", millis(p.DeliveryTimeout)),
			"delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms",
			rangeText((p.Linger+p.RequestTimeout).Milliseconds(), math.MaxInt32)))
	}
	return errs
}

func (p *Producer) whyNoIdempotence() string {
	switch {
	case p.explicit("enable.idempotence"):
		return "(enable.idempotence=false)"
	case p.Acks != "all":
		return "(idempotence is off because acks=" + p.Acks + ")"
	case p.Retries == 0:
		return "(idempotence is off because retries=0)"
	}
	return ""
}

// clientID is client.id, or the id the Java producer would generate.
func (p *Producer) clientID() string {
	switch {
	case p.ClientID != "":
		return p.ClientID
	case p.TransactionalID != "":
		return "producer-" + p.TransactionalID
	}
	return "producer-1"
}

// Settings returns every effective setting kbench applies, defaults
// included, as Java property names and values, with secrets redacted. It
// goes into the result document.
func (p *Producer) Settings() map[string]string { return settings(p, producerProps()) }
