package compat

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

func fixedRandom(int) int { return 4242 }

func TestParseConsumerArgs(t *testing.T) {
	t.Parallel()
	seed000Brokers := "kafka-0-broker.confluent-kafka.autoip.dcos.thisdcos.directory:1025,kafka-1-broker.confluent-kafka.autoip.dcos.thisdcos.directory:1025"
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, c *ConsumerArgs)
	}{
		{
			// Seed 000: a 2.x command with --broker-list=... and --threads.
			name: "seed 000",
			args: []string{"--topic", "performancetest", "--messages", "15000000", "--threads", "1", "--broker-list=" + seed000Brokers},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "bootstrap", c.BootstrapServer, seed000Brokers)
				want(t, "records", c.NumRecords, int64(15000000))
				want(t, "threads", c.Threads, 1)
				want(t, "group", c.Group, "perf-consumer-4242")
				want(t, "warnings", strings.Join(c.Warnings, "|"), "Warning: --messages is deprecated. Use --num-records instead.")
				want(t, "notes", strings.Join(c.Notes, "|"), "--broker-list is deprecated; use --bootstrap-server")
			},
		},
		{
			// Seed 002: the AWS MSK study.
			name: "seed 002",
			args: []string{"--broker-list", "b-2.kafkatest.2sltvn.c23.kafka.us-east-1.amazonaws.com:9092", "--topic", "kafka_test_1", "--messages", "25000"},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "topic", c.Topic, "kafka_test_1")
				want(t, "records", c.NumRecords, int64(25000))
				want(t, "timeout", c.Timeout, 10*time.Second)
				want(t, "interval", c.ReportingInterval, 5*time.Second)
				want(t, "fetch size", c.FetchSize, 1048576)
				want(t, "date format", c.DateFormat.Pattern(), "yyyy-MM-dd HH:mm:ss:SSS")
			},
		},
		{
			name: "4.2 names",
			args: []string{"--bootstrap-server", "h:9092", "--topic", "t", "--num-records", "5", "--command-config", "c.properties",
				"--command-property", "client.id=x", "fetch.min.bytes=1", "--group", "g", "--from-latest", "--show-detailed-stats",
				"--reporting-interval", "1000", "--hide-header", "--print-metrics", "--date-format", "HH:mm", "--fetch-size", "100", "--socket-buffer-size", "200"},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "files", strings.Join(c.PropFiles, ","), "c.properties")
				want(t, "pairs", len(c.PropPairs), 2)
				want(t, "group", c.Group, "g")
				want(t, "latest", c.FromLatest, true)
				want(t, "detailed", c.ShowDetailedStats, true)
				want(t, "interval", c.ReportingInterval, time.Second)
				want(t, "hide", c.HideHeader, true)
				want(t, "metrics", c.PrintMetrics, true)
				want(t, "fetch", c.FetchSize, 100)
				want(t, "socket", c.SocketBufferSize, 200)
				want(t, "warnings", len(c.Warnings), 0)
			},
		},
		{
			name: "bare timeout keeps the default",
			args: []string{"--bootstrap-server", "h:1", "--topic", "t", "--num-records", "5", "--timeout", "--hide-header"},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "timeout", c.Timeout, 10*time.Second)
				want(t, "hide", c.HideHeader, true)
			},
		},
		{
			name:  "timeout value",
			args:  []string{"--bootstrap-server", "h:1", "--topic", "t", "--num-records", "5", "--timeout=1500"},
			check: func(t *testing.T, c *ConsumerArgs) { want(t, "timeout", c.Timeout, 1500*time.Millisecond) },
		},
		{
			name: "include is anchored like Java's Pattern.matches",
			args: []string{"--bootstrap-server", "h:1", "--include", "perf.*", "--num-records", "5"},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "matches", c.Include.MatchString("perftest"), true)
				want(t, "partial", c.Include.MatchString("my-perftest"), false)
			},
		},
		{
			name: "duration without records, assign without group",
			args: []string{"--bootstrap-server", "h:1", "--topic", "t", "--duration", "30s", "--assign", "--threads", "3"},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "duration", c.Duration, 30*time.Second)
				want(t, "group", c.Group, "")
				want(t, "threads", c.Threads, 3)
			},
		},
		{
			name: "old consumer.config warns on stdout like 4.2",
			args: []string{"--bootstrap-server", "h:1", "--topic", "t", "--num-records", "5", "--consumer.config", "c.properties", "--num-fetch-threads", "2"},
			check: func(t *testing.T, c *ConsumerArgs) {
				want(t, "warnings", strings.Join(c.Warnings, "|"), "Warning: --consumer.config is deprecated. Use --command-config instead.")
				want(t, "notes", strings.Join(c.Notes, "|"), "--num-fetch-threads has had no effect since Apache Kafka 2.0; ignored")
			},
		},
		{
			name:  "unique prefix",
			args:  []string{"--bootstrap", "h:1", "--topic", "t", "--num-rec", "5"},
			check: func(t *testing.T, c *ConsumerArgs) { want(t, "records", c.NumRecords, int64(5)) },
		},
		{
			name:  "help",
			args:  []string{"--help"},
			check: func(t *testing.T, c *ConsumerArgs) { want(t, "help", c.Help, true) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseConsumerArgs(tt.args, fixedRandom)
			if err != nil {
				t.Fatalf("ParseConsumerArgs: %v", err)
			}
			tt.check(t, c)
		})
	}
}

func TestParseConsumerArgsErrors(t *testing.T) {
	t.Parallel()
	base := []string{"--bootstrap-server", "h:1"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no topic", []string{"--num-records", "5"}, "exactly one of --topic or --include is required"},
		{"topic and include", []string{"--topic", "t", "--include", "t.*", "--num-records", "5"}, "exactly one of --topic or --include"},
		{"no count", []string{"--topic", "t"}, "argument --num-records is required"},
		{"both counts", []string{"--topic", "t", "--num-records", "5", "--messages", "5"}, "not both"},
		{"zero count", []string{"--topic", "t", "--num-records", "0"}, "--num-records should be greater than zero"},
		{"both configs", []string{"--topic", "t", "--num-records", "5", "--consumer.config", "a", "--command-config", "b"}, "can't be used with option --command-config"},
		{"zero interval", []string{"--topic", "t", "--num-records", "5", "--reporting-interval", "0"}, "Reporting interval must be greater than 0."},
		{"negative interval", []string{"--topic", "t", "--num-records", "5", "--reporting-interval=-5"}, `"-5" is not a whole number of milliseconds`},
		{"bad number", []string{"--topic", "t", "--num-records", "many"}, `option --num-records: "many" is not a whole number`},
		{"bad date format", []string{"--topic", "t", "--num-records", "5", "--date-format", "yyyy-bb"}, "Illegal pattern character 'b'"},
		{"bad regex", []string{"--include", "(?=x)", "--num-records", "5"}, "not a regular expression kbench can use"},
		{"assign with group", []string{"--topic", "t", "--num-records", "5", "--assign", "--group", "g"}, "--assign consumes without a group"},
		{"zero threads", []string{"--topic", "t", "--num-records", "5", "--threads", "0"}, "--threads should be at least 1"},
		{"unknown option", []string{"--topic", "t", "--num-records", "5", "--partitions", "2"}, "unknown option --partitions"},
		{"typo", []string{"--topik", "t"}, "did you mean --topic?"},
		{"ambiguous prefix", []string{"--topic", "t", "--num", "5"}, "option --num is ambiguous: --num-fetch-threads, --num-records"},
		{"two problems", []string{"--num-records", "0"}, "2 problems with the command line"},
		// Regression: illegal topic names were accepted, and the consumer waited on them.
		{"topic too long", []string{"--topic", strings.Repeat("x", 250), "--num-records", "5"}, "topic name is 250 characters long; Kafka allows at most 249"},
		{"topic slash", []string{"--topic", "a/b", "--num-records", "5"}, `topic name "a/b" contains '/'`},
		// Regression: a negative duration was taken for a missing value ("needs a value").
		{"negative duration", []string{"--topic", "t", "--duration", "-5s"}, `option --duration: "-5s" is not a positive duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConsumerArgs(append(append([]string(nil), base...), tt.args...), fixedRandom)
			if err == nil {
				t.Fatalf("ParseConsumerArgs(%q) succeeded, want an error with %q", tt.args, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if !userr.Is(err) {
				t.Errorf("error %q is not marked as the user's (exit 2)", err)
			}
		})
	}
}

func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
