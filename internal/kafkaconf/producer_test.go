package kafkaconf

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// pairs builds --producer-props style props.
func pairs(t *testing.T, kv ...string) []Prop {
	t.Helper()
	props, err := ParsePairs(kv, "--producer-props")
	if err != nil {
		t.Fatal(err)
	}
	return props
}

// newClient proves kgo accepts opts, and returns the client to inspect
// with OptValue.
func newClient(t *testing.T, opts []kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func producerClient(t *testing.T, props []Prop, maxRecordBytes int) (*Producer, []Warning, *kgo.Client) {
	t.Helper()
	p, warns, err := ParseProducer(props)
	if err != nil {
		t.Fatalf("ParseProducer: %v", err)
	}
	opts, err := p.Opts(maxRecordBytes)
	if err != nil {
		t.Fatalf("Opts: %v", err)
	}
	return p, warns, newClient(t, opts)
}

func TestProducerDefaults(t *testing.T) {
	t.Parallel()
	p, warns, cl := producerClient(t, nil, 0)
	if len(warns) != 0 {
		t.Errorf("warnings for defaults: %v", warns)
	}
	want := &Producer{
		Common: Common{RequestTimeout: 30 * time.Second, MetadataMaxAge: 5 * time.Minute,
			RetryBackoff: 100 * time.Millisecond, RetryBackoffMax: time.Second, ConnectionsMaxIdle: 9 * time.Minute,
			ConnectionSetupTimeout: 10 * time.Second, SecurityProtocol: "PLAINTEXT", EnableMetricsPush: true, set: map[string]Prop{}},
		Acks: "all", BatchSize: 16384, Linger: 5 * time.Millisecond, BufferMemory: 33554432, Compression: "none",
		GzipLevel: -1, LZ4Level: 9, ZstdLevel: 3, MaxInFlight: 5, Idempotence: true, Retries: math.MaxInt32,
		DeliveryTimeout: 120 * time.Second, MaxRequestSize: 1048576, TransactionTimeout: time.Minute,
		PartitionerAdaptive: true,
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("ParseProducer(nil) =\n%+v\nwant\n%+v", p, want)
	}
	checkOpts(t, cl, map[string]any{
		"ClientID":                            "producer-1",
		"RequiredAcks":                        kgo.AllISRAcks(),
		"DisableIdempotentWrite":              false,
		"ProducerBatchMaxBytes":               int32(16384),
		"BrokerMaxWriteBytes":                 int32(1048576),
		"ProducerLinger":                      5 * time.Millisecond,
		"ProducerBatchCompression":            []kgo.CompressionCodec{kgo.NoCompression()},
		"MaxBufferedBytes":                    int64(33554432),
		"MaxBufferedRecords":                  int64(33554432 / 8),
		"ProduceRequestTimeout":               30 * time.Second,
		"RequestTimeoutOverhead":              10 * time.Second,
		"RecordRetries":                       int64(math.MaxInt32),
		"RecordDeliveryTimeout":               120 * time.Second,
		"MetadataMaxAge":                      5 * time.Minute,
		"ConnIdleTimeout":                     9 * time.Minute,
		"DialTimeout":                         10 * time.Second,
		"AllowAutoTopicCreation":              true,
		"DisableClientMetrics":                false,
		"TransactionalID":                     "",
		"MaxProduceRequestsInflightPerBroker": 1, // kgo's sigil for "unset", required with idempotence
	})
	if got := fmt.Sprintf("%+v", cl.OptValue(kgo.RecordPartitioner)); !strings.Contains(got, "bytes:16384 adaptive:true keys:true") {
		t.Errorf("partitioner = %s, want UniformBytesPartitioner(16384, true, true)", got)
	}
}

// checkOpts compares kgo's view of each option, by name, with want.
func checkOpts(t *testing.T, cl *kgo.Client, want map[string]any) {
	t.Helper()
	for opt, w := range want {
		if got := cl.OptValue(opt); !reflect.DeepEqual(got, w) {
			t.Errorf("OptValue(%s) = %#v, want %#v", opt, got, w)
		}
	}
}

func TestProducerMappings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		props    []string
		field    func(p *Producer) any
		want     any
		opts     map[string]any
		warnings []string // substrings of the warnings, in order
	}{
		{"acks=0 turns idempotence off silently", []string{"acks=0"},
			func(p *Producer) any { return []any{p.Acks, p.Idempotence} }, []any{"0", false},
			map[string]any{"RequiredAcks": kgo.NoAck(), "DisableIdempotentWrite": true, "MaxProduceRequestsInflightPerBroker": 5}, nil},
		{"acks=1", []string{"acks=1"}, func(p *Producer) any { return p.Acks }, "1",
			map[string]any{"RequiredAcks": kgo.LeaderAck(), "DisableIdempotentWrite": true}, nil},
		{"acks=-1 is all", []string{"acks=-1"}, func(p *Producer) any { return p.Acks }, "all",
			map[string]any{"RequiredAcks": kgo.AllISRAcks(), "DisableIdempotentWrite": false}, nil},
		{"in-flight without idempotence", []string{"enable.idempotence=false", "max.in.flight.requests.per.connection=10"},
			func(p *Producer) any { return p.MaxInFlight }, 10,
			map[string]any{"DisableIdempotentWrite": true, "MaxProduceRequestsInflightPerBroker": 10}, nil},
		{"in-flight below 5 with idempotence warns", []string{"max.in.flight.requests.per.connection=1"},
			func(p *Producer) any { return p.Idempotence }, true, nil,
			[]string{"franz-go always keeps up to 5 produce requests in flight"}},
		{"retries=0 turns idempotence off silently", []string{"retries=0"},
			func(p *Producer) any { return p.Idempotence }, false,
			map[string]any{"RecordRetries": int64(0), "DisableIdempotentWrite": true}, nil},
		{"batch.size", []string{"batch.size=65536"}, func(p *Producer) any { return p.BatchSize }, 65536,
			map[string]any{"ProducerBatchMaxBytes": int32(65536)}, nil},
		{"batch.size=0 uses kgo's minimum", []string{"batch.size=0"}, func(p *Producer) any { return p.BatchSize }, 0,
			map[string]any{"ProducerBatchMaxBytes": int32(512)}, []string{"smallest batch limit is 512 bytes"}},
		// Regression: a 1 MiB batch (every OMB driver's) was said to exceed
		// the broker's default message.max.bytes, taken as 1000012; Kafka's
		// default is 1048588, so it fits.
		{"batch.size of 1 MiB fits the broker's default", []string{"batch.size=1048576"},
			func(p *Producer) any { return p.BatchSize }, 1048576,
			map[string]any{"ProducerBatchMaxBytes": int32(1048576)}, nil},
		{"batch.size just above message.max.bytes", []string{"batch.size=1048589", "max.request.size=4000000"},
			func(p *Producer) any { return p.BatchSize }, 1048589,
			map[string]any{"ProducerBatchMaxBytes": int32(1048589)},
			[]string{"default message.max.bytes (1048588)"}},
		{"batch.size above message.max.bytes", []string{"batch.size=2000000", "max.request.size=4000000"},
			func(p *Producer) any { return p.BatchSize }, 2000000,
			map[string]any{"ProducerBatchMaxBytes": int32(2000000), "BrokerMaxWriteBytes": int32(4000000)},
			[]string{"does not split a batch"}},
		{"batch.size above max.request.size widens the request limit", []string{"batch.size=2000000"},
			func(p *Producer) any { return p.MaxRequestSize }, 1048576,
			map[string]any{"ProducerBatchMaxBytes": int32(2000000), "BrokerMaxWriteBytes": int32(2000000 + 512 + len("producer-1"))},
			[]string{"does not split a batch"}},
		{"linger.ms=0", []string{"linger.ms=0"}, func(p *Producer) any { return p.Linger }, time.Duration(0),
			map[string]any{"ProducerLinger": time.Duration(0)}, nil},
		{"later props override earlier ones", []string{"linger.ms=1", "linger.ms=70"}, func(p *Producer) any { return p.Linger },
			70 * time.Millisecond, map[string]any{"ProducerLinger": 70 * time.Millisecond}, nil},
		{"gzip", []string{"compression.type=gzip", "compression.gzip.level=9"}, func(p *Producer) any { return p.Compression }, "gzip",
			map[string]any{"ProducerBatchCompression": []kgo.CompressionCodec{kgo.GzipCompression().WithLevel(9)}}, nil},
		{"snappy", []string{"compression.type=snappy"}, func(p *Producer) any { return p.Compression }, "snappy",
			map[string]any{"ProducerBatchCompression": []kgo.CompressionCodec{kgo.SnappyCompression()}}, nil},
		{"lz4 default level is the fast compressor", []string{"compression.type=lz4"}, func(p *Producer) any { return p.LZ4Level }, 9,
			map[string]any{"ProducerBatchCompression": []kgo.CompressionCodec{kgo.Lz4Compression().WithLevel(0)}}, nil},
		{"lz4 high level", []string{"compression.type=lz4", "compression.lz4.level=12"}, func(p *Producer) any { return p.LZ4Level }, 12,
			map[string]any{"ProducerBatchCompression": []kgo.CompressionCodec{kgo.Lz4Compression().WithLevel(1 << 17)}},
			[]string{"lz4 has levels 1 to 9"}},
		{"zstd", []string{"compression.type=zstd", "compression.zstd.level=19"}, func(p *Producer) any { return p.ZstdLevel }, 19,
			map[string]any{"ProducerBatchCompression": []kgo.CompressionCodec{kgo.ZstdCompression().WithLevel(4)}}, nil},
		{"buffer.memory", []string{"buffer.memory=1048576"}, func(p *Producer) any { return p.BufferMemory }, int64(1048576),
			map[string]any{"MaxBufferedBytes": int64(1048576), "MaxBufferedRecords": int64(131072)}, nil},
		{"delivery.timeout.ms raised when not set", []string{"request.timeout.ms=200000"},
			func(p *Producer) any { return p.DeliveryTimeout }, 200005 * time.Millisecond,
			map[string]any{"RecordDeliveryTimeout": 200005 * time.Millisecond, "ProduceRequestTimeout": 200 * time.Second,
				"RequestTimeoutOverhead": 10 * time.Second},
			[]string{"as in Java, using 200005"}},
		{"small request.timeout.ms caps the overhead", []string{"request.timeout.ms=2000"},
			func(p *Producer) any { return p.RequestTimeout }, 2 * time.Second,
			map[string]any{"ProduceRequestTimeout": 2 * time.Second, "RequestTimeoutOverhead": 2 * time.Second}, nil},
		{"transactional", []string{"transactional.id=tx-1", "transaction.timeout.ms=30000"},
			func(p *Producer) any { return p.TransactionalID }, "tx-1",
			map[string]any{"TransactionalID": "tx-1", "TransactionTimeout": 30 * time.Second, "ClientID": "producer-tx-1"}, nil},
		{"client.id", []string{"client.id=bench"}, func(p *Producer) any { return p.ClientID }, "bench",
			map[string]any{"ClientID": "bench"}, nil},
		{"bootstrap.servers", []string{"bootstrap.servers=127.0.0.1:9092, 127.0.0.1:9093"},
			func(p *Producer) any { return p.BootstrapServers }, []string{"127.0.0.1:9092", "127.0.0.1:9093"},
			map[string]any{"SeedBrokers": []string{"127.0.0.1:9092", "127.0.0.1:9093"}}, nil},
		{"round robin partitioner", []string{"partitioner.class=" + roundRobinPartitioner},
			func(p *Producer) any { return p.PartitionerClass }, roundRobinPartitioner, nil, nil},
		{"removed DefaultPartitioner", []string{"partitioner.class=" + defaultPartitioner},
			func(p *Producer) any { return p.PartitionerClass }, defaultPartitioner, nil, []string{"removed in Kafka 4.0"}},
		{"partitioner knobs", []string{"partitioner.ignore.keys=TRUE", "partitioner.adaptive.partitioning.enable=false"},
			func(p *Producer) any { return []bool{p.PartitionerIgnoreKeys, p.PartitionerAdaptive} }, []bool{true, false}, nil, nil},
		{"availability timeout warns", []string{"partitioner.availability.timeout.ms=100"},
			func(p *Producer) any { return p.PartitionerAvailabilityTimeout }, 100 * time.Millisecond, nil,
			[]string{"no availability timeout"}},
		{"metadata.max.age.ms below kgo's min age", []string{"metadata.max.age.ms=1000"},
			func(p *Producer) any { return p.MetadataMaxAge }, time.Second,
			map[string]any{"MetadataMaxAge": time.Second, "MetadataMinAge": time.Second}, nil},
		{"connections.max.idle.ms=-1", []string{"connections.max.idle.ms=-1"},
			func(p *Producer) any { return p.ConnectionsMaxIdle }, -time.Millisecond,
			map[string]any{"ConnIdleTimeout": 15 * time.Minute}, []string{"at most 15 minutes"}},
		{"socket.connection.setup.timeout.ms", []string{"socket.connection.setup.timeout.ms=3000"},
			func(p *Producer) any { return p.ConnectionSetupTimeout }, 3 * time.Second,
			map[string]any{"DialTimeout": 3 * time.Second}, nil},
		{"enable.metrics.push=false", []string{"enable.metrics.push=false"},
			func(p *Producer) any { return p.EnableMetricsPush }, false, map[string]any{"DisableClientMetrics": true}, nil},
		{"security.protocol case-insensitive", []string{"security.protocol=plaintext"},
			func(p *Producer) any { return p.SecurityProtocol }, "PLAINTEXT", nil, nil},
		{"static backoff warns", []string{"retry.backoff.ms=2000"},
			func(p *Producer) any { return p.RetryBackoff }, 2 * time.Second, nil, []string{"a static backoff of 1000 ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, warns, cl := producerClient(t, pairs(t, tt.props...), 0)
			if got := tt.field(p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("field = %#v, want %#v", got, tt.want)
			}
			checkOpts(t, cl, tt.opts)
			checkWarnings(t, warns, tt.warnings...)
		})
	}
}

func checkWarnings(t *testing.T, warns []Warning, want ...string) {
	t.Helper()
	if len(warns) != len(want) {
		t.Fatalf("warnings = %q, want %d matching %q", warns, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(warns[i].String(), w) {
			t.Errorf("warning %d = %q, want it to contain %q", i, warns[i], w)
		}
	}
}

func TestProducerPartitioners(t *testing.T) {
	t.Parallel()
	tests := []struct{ class, want string }{
		{"", "*kgo.uniformBytesPartitioner"},
		{roundRobinPartitioner, "*kgo.roundRobinPartitioner"},
		{defaultPartitioner, "*kgo.keyPartitioner"},
		{uniformStickyPartitioner, "*kgo.stickyPartitioner"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			var props []Prop
			if tt.class != "" {
				props = pairs(t, "partitioner.class="+tt.class)
			}
			_, _, cl := producerClient(t, props, 0)
			if got := fmt.Sprintf("%T", cl.OptValue(kgo.RecordPartitioner)); got != tt.want {
				t.Errorf("partitioner = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestProducerSettings(t *testing.T) {
	t.Parallel()
	p, _, err := ParseProducer(pairs(t, "acks=1", "linger.ms=10", "bootstrap.servers=h1:9092,h2:9092"))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings()
	want := map[string]string{
		"acks": "1", "linger.ms": "10", "enable.idempotence": "false", "client.id": "producer-1",
		"bootstrap.servers": "h1:9092,h2:9092", "batch.size": "16384", "compression.type": "none",
		"delivery.timeout.ms": "120000", "retries": "2147483647", "security.protocol": "PLAINTEXT",
	}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("Settings()[%q] = %q, want %q", k, s[k], v)
		}
	}
	if _, ok := s["transactional.id"]; ok {
		t.Error("Settings lists transactional.id, which is unset")
	}
	for _, d := range ProducerDefaults() {
		if _, ok := s[d.Key]; !ok && d.Value != "" {
			t.Errorf("Settings misses %s, which has a default", d.Key)
		}
	}
}
