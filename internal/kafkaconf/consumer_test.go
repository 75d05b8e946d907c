package kafkaconf

import (
	"reflect"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func consumerClient(t *testing.T, props []Prop) (*Consumer, []Warning, *kgo.Client) {
	t.Helper()
	c, warns, err := ParseConsumer(props)
	if err != nil {
		t.Fatalf("ParseConsumer: %v", err)
	}
	opts, err := c.Opts()
	if err != nil {
		t.Fatalf("Opts: %v", err)
	}
	if c.GroupID != "" {
		opts = append(opts, kgo.ConsumerGroup(c.GroupID)) // as the caller does
	}
	return c, warns, newClient(t, opts)
}

func TestConsumerDefaults(t *testing.T) {
	t.Parallel()
	c, warns, cl := consumerClient(t, nil)
	if len(warns) != 0 {
		t.Errorf("warnings for defaults: %v", warns)
	}
	want := &Consumer{
		Common: Common{RequestTimeout: 30 * time.Second, MetadataMaxAge: 5 * time.Minute,
			RetryBackoff: 100 * time.Millisecond, RetryBackoffMax: time.Second, ConnectionsMaxIdle: 9 * time.Minute,
			ConnectionSetupTimeout: 10 * time.Second, SecurityProtocol: "PLAINTEXT", EnableMetricsPush: true, set: map[string]Prop{}},
		GroupProtocol: "classic", PartitionAssignmentStrategy: []string{"range", "cooperative-sticky"},
		AutoOffsetReset: "latest", EnableAutoCommit: true, AutoCommitInterval: 5 * time.Second,
		SessionTimeout: 45 * time.Second, HeartbeatInterval: 3 * time.Second, MaxPollInterval: 5 * time.Minute,
		MaxPollRecords: 500, FetchMinBytes: 1, FetchMaxBytes: 52428800, FetchMaxWait: 500 * time.Millisecond,
		MaxPartitionFetchBytes: 1048576, IsolationLevel: "read_uncommitted", CheckCRCs: true, AllowAutoCreateTopics: true, ShareAcknowledgementMode: "implicit",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("ParseConsumer(nil) =\n%+v\nwant\n%+v", c, want)
	}
	checkOpts(t, cl, map[string]any{
		"ClientID":                  "consumer-null-1",
		"FetchMaxWait":              500 * time.Millisecond,
		"FetchMinBytes":             int32(1),
		"FetchMaxBytes":             int32(52428800),
		"FetchMaxPartitionBytes":    int32(1048576),
		"BrokerMaxReadBytes":        int32(104857600),
		"FetchIsolationLevel":       int8(0), // kgo reports the level number
		"ConsumeResetOffset":        kgo.NewOffset().AtEnd(),
		"ConsumeStartOffset":        kgo.NewOffset().AtEnd(),
		"SessionTimeout":            45 * time.Second,
		"HeartbeatInterval":         3 * time.Second,
		"RebalanceTimeout":          5 * time.Minute,
		"AutoCommitInterval":        5 * time.Second,
		"DisableAutoCommit":         false,
		"ServerSideBalancer":        false,
		"RequestTimeoutOverhead":    30 * time.Second,
		"DisableFetchCRCValidation": false,
		"AllowAutoTopicCreation":    true,
	})
	checkBalancers(t, cl, "range", "cooperative-sticky")
}

func checkBalancers(t *testing.T, cl *kgo.Client, want ...string) {
	t.Helper()
	var got []string
	for _, b := range cl.OptValue("Balancers").([]kgo.GroupBalancer) {
		got = append(got, b.ProtocolName())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("balancers = %q, want %q", got, want)
	}
}

func TestConsumerMappings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		props     []string
		field     func(c *Consumer) any
		want      any
		opts      map[string]any
		balancers []string
		warnings  []string
	}{
		{"earliest", []string{"auto.offset.reset=earliest"}, func(c *Consumer) any { return c.AutoOffsetReset }, "earliest",
			map[string]any{"ConsumeStartOffset": kgo.NewOffset().AtStart(), "ConsumeResetOffset": kgo.NewOffset().AtStart()}, nil, nil},
		{"none", []string{"auto.offset.reset=NONE", "group.id=g"}, func(c *Consumer) any { return c.AutoOffsetReset }, "none",
			map[string]any{"ConsumeStartOffset": kgo.NewOffset().AtCommitted(), "ConsumeResetOffset": kgo.NoResetOffset()}, nil, nil},
		{"by_duration", []string{"auto.offset.reset=by_duration:P1DT1H30M"}, func(c *Consumer) any { return c.AutoOffsetReset },
			"by_duration:P1DT1H30M", map[string]any{"ConsumeResetOffset": kgo.LookbackOffset(25*time.Hour + 30*time.Minute)}, nil, nil},
		{"read_committed", []string{"isolation.level=read_committed"}, func(c *Consumer) any { return c.IsolationLevel }, "read_committed",
			map[string]any{"FetchIsolationLevel": int8(1)}, nil, nil},
		{"fetch sizes", []string{"fetch.min.bytes=1024", "fetch.max.bytes=209715200", "max.partition.fetch.bytes=4194304"},
			func(c *Consumer) any { return []int{c.FetchMinBytes, c.FetchMaxBytes, c.MaxPartitionFetchBytes} }, []int{1024, 209715200, 4194304},
			map[string]any{"FetchMinBytes": int32(1024), "FetchMaxBytes": int32(209715200), "FetchMaxPartitionBytes": int32(4194304),
				"BrokerMaxReadBytes": int32(419430400)}, nil, nil},
		{"fetch.max.wait.ms=0 becomes franz-go's 10", []string{"fetch.max.wait.ms=0"}, func(c *Consumer) any { return c.FetchMaxWait },
			time.Duration(0), map[string]any{"FetchMaxWait": 10 * time.Millisecond}, nil, []string{"at least 10 ms"}},
		{"auto commit off with a group", []string{"group.id=g", "enable.auto.commit=false"},
			func(c *Consumer) any { return c.EnableAutoCommit }, false,
			map[string]any{"DisableAutoCommit": true, "ConsumerGroup": "g", "ClientID": "consumer-g-1"}, nil, nil},
		{"auto commit off without a group builds", []string{"enable.auto.commit=false"},
			func(c *Consumer) any { return c.EnableAutoCommit }, false, map[string]any{"DisableAutoCommit": false}, nil, nil},
		{"fast auto commit", []string{"auto.commit.interval.ms=50"}, func(c *Consumer) any { return c.AutoCommitInterval },
			50 * time.Millisecond, map[string]any{"AutoCommitInterval": 100 * time.Millisecond}, nil, []string{"at most every 100 ms"}},
		{"group timeouts", []string{"session.timeout.ms=10000", "heartbeat.interval.ms=1000", "max.poll.interval.ms=60000"},
			func(c *Consumer) any { return c.MaxPollInterval }, time.Minute,
			map[string]any{"SessionTimeout": 10 * time.Second, "HeartbeatInterval": time.Second, "RebalanceTimeout": time.Minute}, nil, nil},
		{"assignors by short name", []string{"partition.assignment.strategy=sticky, roundrobin"},
			func(c *Consumer) any { return c.PartitionAssignmentStrategy }, []string{"sticky", "roundrobin"}, nil,
			[]string{"sticky", "roundrobin"}, nil},
		{"assignors by class", []string{"partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor"},
			func(c *Consumer) any { return c.PartitionAssignmentStrategy }, []string{"cooperative-sticky"}, nil,
			[]string{"cooperative-sticky"}, nil},
		{"KIP-848", []string{"group.protocol=CONSUMER", "group.id=g"}, func(c *Consumer) any { return c.GroupProtocol }, "consumer",
			map[string]any{"ServerSideBalancer": true}, []string{"sticky"}, nil},
		{"KIP-848 range", []string{"group.protocol=consumer", "group.remote.assignor=range"},
			func(c *Consumer) any { return c.GroupRemoteAssignor }, "range", nil, []string{"range"}, nil},
		{"static member", []string{"group.id=g", "group.instance.id=member-1"}, func(c *Consumer) any { return c.GroupInstanceID }, "member-1",
			map[string]any{"InstanceID": "member-1", "ClientID": "consumer-g-member-1"}, nil, nil},
		{"rack", []string{"client.rack=use1-az1"}, func(c *Consumer) any { return c.ClientRack }, "use1-az1",
			map[string]any{"Rack": "use1-az1"}, nil, nil},
		{"crc and auto create", []string{"check.crcs=false", "allow.auto.create.topics=false"},
			func(c *Consumer) any { return []bool{c.CheckCRCs, c.AllowAutoCreateTopics} }, []bool{false, false},
			map[string]any{"DisableFetchCRCValidation": true, "AllowAutoTopicCreation": false}, nil, nil},
		{"request timeout is the overhead", []string{"request.timeout.ms=5000"}, func(c *Consumer) any { return c.RequestTimeout },
			5 * time.Second, map[string]any{"RequestTimeoutOverhead": 5 * time.Second}, nil, nil},
		{"max.poll.records", []string{"max.poll.records=10000"}, func(c *Consumer) any { return c.MaxPollRecords }, 10000, nil, nil, nil},
		{"producer setting warns", []string{"acks=all"}, func(c *Consumer) any { return c.GroupID }, "", nil, nil,
			[]string{`property "acks" (--producer-props): a producer setting; it has no effect on a consumer; ignored`}},
		{"serializer warns as producer setting", []string{"key.serializer=x"}, func(c *Consumer) any { return c.GroupID }, "", nil, nil,
			[]string{"a producer setting"}},
		{"no effect", []string{"exclude.internal.topics=false"}, func(c *Consumer) any { return c.GroupID }, "", nil, nil,
			[]string{"kbench consumes the topics it names"}},
		{"typo", []string{"auto.offset.rest=earliest"}, func(c *Consumer) any { return c.AutoOffsetReset }, "latest", nil, nil,
			[]string{"unknown to the Java consumer (Apache Kafka 4.x); ignored; did you mean auto.offset.reset?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, warns, cl := consumerClient(t, pairs(t, tt.props...))
			if got := tt.field(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("field = %#v, want %#v", got, tt.want)
			}
			checkOpts(t, cl, tt.opts)
			if tt.balancers != nil {
				checkBalancers(t, cl, tt.balancers...)
			}
			checkWarnings(t, warns, tt.warnings...)
		})
	}
}

func TestConsumerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props []string
		want  []string
	}{
		{"auto.offset.reset", []string{"auto.offset.reset=sooner"},
			[]string{"--producer-props: auto.offset.reset=sooner: invalid value; allowed: earliest, latest, none, by_duration:<ISO-8601 duration such as PT1H>"}},
		// Regression: auto.offset.reset=begin got no hint of what was meant.
		{"reset begin", []string{"auto.offset.reset=begin"},
			[]string{"auto.offset.reset=begin: invalid value: did you mean earliest?; allowed: earliest, latest, none, by_duration:"}},
		{"reset largest", []string{"auto.offset.reset=largest"}, []string{"did you mean latest?"}},
		{"reset typo", []string{"auto.offset.reset=earlist"}, []string{"did you mean earliest?"}},
		{"reset by_duration", []string{"auto.offset.reset=by_duration"}, []string{"did you mean by_duration:<ISO-8601"}},
		// Regression: a bad port in bootstrap.servers surfaced only as a connection failure.
		{"port 0", []string{"bootstrap.servers=localhost:0"}, []string{`bootstrap.servers=localhost:0: invalid value: "localhost:0": port "0" is not a number from 1 to 65535`}},
		{"bad duration", []string{"auto.offset.reset=by_duration:1h"}, []string{`"1h" is not an ISO-8601 duration`}},
		{"isolation.level", []string{"isolation.level=committed"},
			[]string{"isolation.level=committed: invalid value; allowed: read_uncommitted, read_committed"}},
		{"group.protocol", []string{"group.protocol=share"}, []string{"allowed: classic, consumer"}},
		{"classic settings with KIP-848", []string{"group.protocol=consumer", "session.timeout.ms=10000", "partition.assignment.strategy=range"},
			[]string{"group.protocol=consumer: partition.assignment.strategy, session.timeout.ms cannot be set when group.protocol=CONSUMER"}},
		{"remote assignor with classic", []string{"group.remote.assignor=uniform"},
			[]string{"group.protocol=classic: group.remote.assignor cannot be set when group.protocol=CLASSIC"}},
		{"heartbeat not below session", []string{"session.timeout.ms=3000"},
			[]string{"heartbeat.interval.ms=3000: Heartbeat must be set lower than the session timeout (session.timeout.ms=3000); allowed: 1 to 2999"}},
		{"unknown assignor", []string{"partition.assignment.strategy=range,com.example.Mine"},
			[]string{"invalid value: unknown assignor com.example.Mine (kbench cannot load Java classes)"}},
		{"bad instance id", []string{"group.instance.id=has space"}, []string{"group.instance.id=has space: invalid value"}},
		{"negative fetch", []string{"fetch.max.bytes=-1", "fetch.min.bytes=x"},
			[]string{"fetch.max.bytes=-1: invalid value; allowed: 0 to 1073741824", "fetch.min.bytes=x: invalid value: not a whole number"}},
		{"max.poll.records", []string{"max.poll.records=0"}, []string{"allowed: 1 to 2147483647"}},
		{"SASL without a mechanism", []string{"security.protocol=SASL_PLAINTEXT"}, []string{"sasl.mechanism=GSSAPI: Kerberos (GSSAPI, the Java default) is not supported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := ParseConsumer(pairs(t, tt.props...))
			requireUserErr(t, err, tt.want...)
			if c != nil {
				t.Error("got a consumer along with the error")
			}
		})
	}
}

func TestConsumerSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props []string
		group string // set after parsing, as from --group
		want  map[string]string
	}{
		{"no group: Java turns auto commit off", nil, "",
			map[string]string{"enable.auto.commit": "false", "client.id": "consumer-null-1", "auto.offset.reset": "latest",
				"partition.assignment.strategy": "org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor"}},
		{"group from a flag", nil, "perf", map[string]string{"enable.auto.commit": "true", "group.id": "perf", "client.id": "consumer-perf-1"}},
		{"explicit values", []string{"fetch.max.wait.ms=100", "group.id=g", "partition.assignment.strategy=roundrobin"}, "",
			map[string]string{"fetch.max.wait.ms": "100", "group.id": "g",
				"partition.assignment.strategy": "org.apache.kafka.clients.consumer.RoundRobinAssignor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := ParseConsumer(pairs(t, tt.props...))
			if err != nil {
				t.Fatal(err)
			}
			if tt.group != "" {
				c.GroupID = tt.group
			}
			s := c.Settings()
			for k, v := range tt.want {
				if s[k] != v {
					t.Errorf("Settings()[%q] = %q, want %q", k, s[k], v)
				}
			}
		})
	}
}

// TestCheckConsumerValue guards the check of values a tool overrides.
// Regression: consumer-perf-test replaced auto.offset.reset=begin with its
// own value without a word.
func TestCheckConsumerValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		prop Prop
		want string // "" for a valid value
	}{
		{"valid", Prop{Key: "auto.offset.reset", Value: "latest"}, ""},
		{"by_duration", Prop{Key: "auto.offset.reset", Value: "by_duration:PT1H"}, ""},
		{"unknown key", Prop{Key: "no.such", Value: "x"}, ""},
		{"none alone", Prop{Key: "auto.offset.reset", Value: "none"}, ""}, // needs a group only in ParseConsumer
		{"begin", Prop{Key: "auto.offset.reset", Value: "begin", Source: "c.properties:3"},
			"c.properties:3: auto.offset.reset=begin: invalid value: did you mean earliest?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckConsumerValue(tt.prop)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckConsumerValue(%+v) = %v, want nil", tt.prop, err)
				}
				return
			}
			requireUserErr(t, err, tt.want)
		})
	}
}
