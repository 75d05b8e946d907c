package kafkaconf

import (
	"strings"
	"testing"
)

func TestProducerRecordSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		props          []string
		maxRecordBytes int
		wantBatch      int32
		wantWrite      int32
		wantErr        []string
	}{
		{"unknown size keeps batch.size", nil, 0, 16384, 1048576, nil},
		{"small records keep batch.size", nil, 100, 16384, 1048576, nil},
		{"a record above batch.size gets its own batch", nil, 100000, int32(serializedSize(100000) + recordSlack), 1048576, nil},
		{"too large for max.request.size", nil, 2000000, 0, 0,
			[]string{"max.request.size=1048576: The message is 2000088 bytes when serialized which is larger than 1048576, which is the value of the max.request.size configuration.",
				"allowed: 2000088 or more"}},
		{"raised max.request.size", []string{"max.request.size=4194304"}, 2000000, 2000088 + recordSlack, 4194304, nil},
		{"too large for buffer.memory", []string{"buffer.memory=100000", "max.request.size=4194304"}, 200000, 0, 0,
			[]string{"--producer-props: buffer.memory=100000: The message is 200087 bytes when serialized which is larger than the total memory buffer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _, err := ParseProducer(pairs(t, tt.props...))
			if err != nil {
				t.Fatal(err)
			}
			opts, err := p.Opts(tt.maxRecordBytes)
			if tt.wantErr != nil {
				requireUserErr(t, err, tt.wantErr...)
				return
			}
			if err != nil {
				t.Fatalf("Opts: %v", err)
			}
			checkOpts(t, newClient(t, opts), map[string]any{
				"ProducerBatchMaxBytes": tt.wantBatch,
				"BrokerMaxWriteBytes":   tt.wantWrite,
			})
		})
	}
	if got := serializedSize(100); got != 186 { // 61 + 21 + 1 + 2 + 100 + 1, as Java estimates it
		t.Errorf("serializedSize(100) = %d, want 186", got)
	}
}

func TestProducerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props []string
		want  []string
	}{
		{"acks", []string{"acks=2"}, []string{"--producer-props: acks=2: invalid value; allowed: 0, 1, all, -1"}},
		{"acks is case sensitive as in Java", []string{"acks=ALL"}, []string{"acks=ALL: invalid value"}},
		{"compression", []string{"compression.type=brotli"},
			[]string{"compression.type=brotli: invalid value; allowed: none, gzip, snappy, lz4, zstd"}},
		{"not a number", []string{"linger.ms=abc"}, []string{"linger.ms=abc: invalid value: not a whole number; allowed: 0 to 60000"}},
		{"linger above franz-go's limit", []string{"linger.ms=60001"}, []string{"linger.ms=60001: invalid value; allowed: 0 to 60000"}},
		{"negative batch", []string{"batch.size=-1"}, []string{"batch.size=-1: invalid value; allowed: 0 to 1073741824"}},
		{"empty value", []string{"retries="}, []string{"retries=: invalid value: empty; allowed: 0 to 2147483647"}},
		{"bool", []string{"enable.idempotence=yes"}, []string{"enable.idempotence=yes: invalid value; allowed: true, false"}},
		{"gzip level", []string{"compression.gzip.level=0"}, []string{"allowed: -1 (default), 1 to 9"}},
		{"every invalid value at once", []string{"acks=2", "linger.ms=abc", "buffer.memory=0"},
			[]string{"acks=2: invalid value", "linger.ms=abc: invalid value", "buffer.memory=0: invalid value; allowed: 1 or more"}},
		{"explicit idempotence with acks=1", []string{"enable.idempotence=true", "acks=1"},
			[]string{"acks=1: Must set acks to all in order to use the idempotent producer", "allowed: all, -1 (or set enable.idempotence=false)"}},
		{"explicit idempotence with retries=0", []string{"enable.idempotence=true", "retries=0"},
			[]string{"retries=0: Must set retries to non-zero when using the idempotent producer"}},
		{"too many in flight", []string{"max.in.flight.requests.per.connection=6"},
			[]string{"max.in.flight.requests.per.connection=6: To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is 6."}},
		{"too many in flight even with acks=1, as Java 4.x", []string{"acks=1", "max.in.flight.requests.per.connection=6"},
			[]string{"must be set to at most 5"}},
		{"transactions need idempotence", []string{"acks=1", "transactional.id=tx"},
			[]string{"transactional.id=tx: Cannot set a transactional.id without also enabling idempotence. (idempotence is off because acks=1)"}},
		{"empty transactional.id", []string{"transactional.id="}, []string{"transactional.id=: invalid value: empty"}},
		{"explicit delivery timeout too small", []string{"delivery.timeout.ms=1000"},
			[]string{"delivery.timeout.ms=1000: delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms (5 + 30000); allowed: 30005 to 2147483647"}},
		{"unknown partitioner class", []string{"partitioner.class=com.example.MyPartitioner"},
			[]string{"partitioner.class=com.example.MyPartitioner: invalid value: kbench cannot load Java classes; allowed: " + roundRobinPartitioner}},
		{"empty bootstrap list", []string{"bootstrap.servers= "}, []string{"bootstrap.servers= : invalid value: empty list"}},
		// Regression: a bad port or a missing one was accepted, and the run
		// failed only after the connect timeout.
		{"bootstrap port 0", []string{"bootstrap.servers=h:0"}, []string{`bootstrap.servers=h:0: invalid value: "h:0": port "0" is not a number from 1 to 65535`}},
		{"bootstrap port too large", []string{"bootstrap.servers=h:1,h:65536"}, []string{`"h:65536": port "65536" is not a number from 1 to 65535`}},
		{"bootstrap port not a number", []string{"bootstrap.servers=h:x"}, []string{`"h:x": port "x" is not a number`}},
		{"bootstrap no port", []string{"bootstrap.servers=localhost"}, []string{`"localhost" is not HOST:PORT; allowed: HOST:PORT entries`}},
		{"bootstrap empty port", []string{"bootstrap.servers=h:"}, []string{`"h:" has no port`}},
		{"bootstrap no host", []string{"bootstrap.servers=:9092"}, []string{`":9092" has no host`}},
		{"max.request.size below franz-go's minimum", []string{"max.request.size=100"}, []string{"allowed: 1024 to 1073741824"}},
		{"TLS with a missing trust store", []string{"security.protocol=SSL", "ssl.truststore.location=/no/t.jks"},
			[]string{"ssl.truststore.location=/no/t.jks: cannot read it: open /no/t.jks: no such file or directory"}},
		{"SASL and its keys, secrets redacted", []string{"security.protocol=SASL_SSL", "sasl.mechanism=PLAIN", "sasl.jaas.config=x password=\"hunter2\";", "ssl.truststore.location=/t.jks"},
			[]string{"sasl.jaas.config=[redacted]: at character 3: expected the control flag required",
				"ssl.truststore.location=/t.jks: cannot read it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _, err := ParseProducer(pairs(t, tt.props...))
			requireUserErr(t, err, tt.want...)
			if p != nil {
				t.Error("got a producer along with the error")
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks a secret: %v", err)
			}
		})
	}
}

func TestProducerWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props []string
		want  string
	}{
		{"no effect", []string{"send.buffer.bytes=131072"},
			`property "send.buffer.bytes" (--producer-props): known to the Java client but has no effect in kbench (franz-go sizes socket buffers itself); ignored`},
		{"serializer", []string{"key.serializer=org.apache.kafka.common.serialization.ByteArraySerializer"}, "kbench sends the bytes it generates"},
		{"metrics prefix", []string{"metrics.num.samples=3"}, "kbench measures and reports its own metrics"},
		{"typo", []string{"linger.msx=5"},
			`property "linger.msx" (--producer-props): unknown to the Java producer (Apache Kafka 4.x); ignored; did you mean linger.ms?`},
		{"prefix", []string{"compression=gzip"}, "did you mean compression.type?"},
		{"case", []string{"Acks=all"}, "did you mean acks?"},
		{"nothing close", []string{"zzzz=1"}, `property "zzzz" (--producer-props): unknown to the Java producer (Apache Kafka 4.x); ignored`},
		{"consumer setting", []string{"group.id=g"}, "a consumer setting; it has no effect on a producer; ignored"},
		{"deserializer", []string{"value.deserializer=x"}, "a consumer setting"},
		{"TLS key without TLS", []string{"ssl.truststore.location=/t.jks"},
			"has no effect with security.protocol=PLAINTEXT (it applies with SSL or SASL_SSL); ignored"},
		{"SASL key without SASL", []string{"sasl.mechanism=PLAIN"}, "has no effect with security.protocol=PLAINTEXT (it applies with SASL_PLAINTEXT or SASL_SSL)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, warns, err := ParseProducer(pairs(t, tt.props...))
			if err != nil {
				t.Fatal(err)
			}
			checkWarnings(t, warns, tt.want)
		})
	}
}

// Regression: callers may change fields after parsing; Opts must turn
// what kgo would reject into user errors rather than fail in kgo.NewClient.
func TestProducerOptsRevalidates(t *testing.T) {
	t.Parallel()
	p, _, err := ParseProducer(nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Acks = "1"
	_, err = p.Opts(0)
	requireUserErr(t, err, "acks=1: idempotence requires acks=all")
	if _, err := p.Opts(-1); err == nil {
		t.Error("Opts(-1) did not fail")
	}
}
