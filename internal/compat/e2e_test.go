package compat

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

func TestParseE2EArgs(t *testing.T) {
	t.Parallel()
	seedBrokers := "b-2.kafkatest.2sltvn.c23.kafka.us-east-1.amazonaws.com:9092,b-3.kafkatest.2sltvn.c23.kafka.us-east-1.amazonaws.com:9092"
	tests := []struct {
		name string
		args []string
		want E2EArgs
	}{
		{
			// Seed 002: kafka-run-class.sh kafka.tools.EndToEndLatency ... (up to 4.1).
			name: "seed 002 positional",
			args: []string{seedBrokers, "kafka_test_1", "12000", "1", "4000"},
			want: E2EArgs{BootstrapServer: seedBrokers, Topic: "kafka_test_1", NumRecords: 12000, Acks: "1", RecordSize: 4000, Positional: true},
		},
		{
			name: "positional with properties file",
			args: []string{"h:9092", "t", "10", "all", "100", "client.properties"},
			want: E2EArgs{BootstrapServer: "h:9092", Topic: "t", NumRecords: 10, Acks: "all", RecordSize: 100, ConfigFile: "client.properties", Positional: true},
		},
		{
			name: "positional with a blank properties file",
			args: []string{"h:9092", "t", "10", "all", "100", " "},
			want: E2EArgs{BootstrapServer: "h:9092", Topic: "t", NumRecords: 10, Acks: "all", RecordSize: 100, Positional: true},
		},
		{
			name: "positional then kbench's --json",
			args: []string{"h:9092", "t", "10", "1", "100", "--json", "out.json"},
			want: E2EArgs{BootstrapServer: "h:9092", Topic: "t", NumRecords: 10, Acks: "1", RecordSize: 100, JSONPath: "out.json", Positional: true},
		},
		{
			name: "KIP-1172 named options",
			args: []string{"--bootstrap-server", "h:9092", "--topic", "t", "--num-records", "10", "--producer-acks", "all", "--record-size", "100",
				"--record-key-size", "8", "--num-headers", "2", "--record-header-key-size", "4", "--record-header-size", "-1", "--command-config", "c.properties"},
			want: E2EArgs{BootstrapServer: "h:9092", Topic: "t", NumRecords: 10, Acks: "all", RecordSize: 100,
				KeySize: 8, NumHeaders: 2, HeaderKeySize: 4, HeaderSize: -1, ConfigFile: "c.properties"},
		},
		{
			name: "optional values left out keep their defaults",
			args: []string{"--bootstrap-server", "h:9092", "--topic", "t", "--num-records", "10", "--producer-acks", "1", "--record-size", "0",
				"--record-key-size", "--num-headers"},
			want: E2EArgs{BootstrapServer: "h:9092", Topic: "t", NumRecords: 10, Acks: "1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseE2EArgs(tt.args)
			if err != nil {
				t.Fatalf("ParseE2EArgs: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestParseE2EArgsErrors(t *testing.T) {
	t.Parallel()
	named := func(acks, size string, extra ...string) []string {
		return append([]string{"--bootstrap-server", "h:1", "--topic", "t", "--num-records", "10", "--producer-acks", acks, "--record-size", size}, extra...)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"too few positional", []string{"h:1", "t", "10"}, "Invalid number of arguments. Expected 5 or 6 positional arguments, but got 3."},
		{"too many positional", []string{"h:1", "t", "10", "1", "100", "f", "g"}, "but got 7"},
		{"acks 0", []string{"h:1", "t", "10", "0", "100"}, "Latency testing requires synchronous acknowledgement. Please use '1' or 'all'."},
		{"acks -1", named("-1", "100"), "Invalid value for --producer-acks"},
		{"no records", []string{"h:1", "t", "0", "1", "100"}, "Value for --num-records must be a positive integer."},
		{"negative size", named("1", "-1"), "Value for --record-size must be a non-negative integer."},
		{"negative key", named("1", "1", "--record-key-size", "-2"), "Value for --record-key-size must be a non-negative integer."},
		{"header size", named("1", "1", "--record-header-size", "-2"), "non-negative integer or -1 for null header value"},
		{"header key size", named("1", "1", "--record-header-key-size", "-1"), "Value for --record-header-key-size must be a non-negative integer."},
		{"headers", named("1", "1", "--num-headers", "-1"), "Value for --num-headers must be a non-negative integer."},
		{"not a number", []string{"h:1", "t", "ten", "1", "100"}, `option --num-records: "ten" is not a whole number`},
		{"missing named", []string{"--bootstrap-server", "h:1", "--topic", "t"}, `Missing required argument "[num-records]"`},
		{"mixed forms", []string{"h:1", "t", "10", "1", "100", "--record-key-size", "4"}, "positional arguments cannot be mixed with --record-key-size"},
		{"int range", named("1", "3000000000"), "out of range for an Integer"},
		// Regression: illegal topic names were accepted.
		{"bad topic", []string{"h:1", "a*b", "10", "1", "100"}, `Invalid value for --topic: topic name "a*b" contains '*'`},
		{"topic dot-dot", []string{"h:1", "..", "10", "1", "100"}, `topic name ".." is not allowed by Kafka`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseE2EArgs(tt.args)
			if err == nil {
				t.Fatalf("ParseE2EArgs(%q) succeeded, want an error with %q", tt.args, tt.want)
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

// The golden lines come from Apache Kafka 4.1.2's EndToEndLatency against a
// local broker; the latencies are recovered from them.
func TestE2EOutputGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		print func(b *bytes.Buffer)
		want  string
	}{
		{"first record", func(b *bytes.Buffer) { E2EProgressLine(b, 0, 70755747*time.Nanosecond) }, "0\t70.755747\n"},
		{"thousandth", func(b *bytes.Buffer) { E2EProgressLine(b, 1000, 2055395*time.Nanosecond) }, "1000\t2.055395\n"},
		{"double rounding as Java", func(b *bytes.Buffer) { E2EProgressLine(b, 1000, 488592*time.Nanosecond) }, "1000\t0.48859199999999997\n"},
		{"whole milliseconds", func(b *bytes.Buffer) { E2EProgressLine(b, 2000, 2*time.Millisecond) }, "2000\t2.0\n"},
		{"scientific below 10^-3", func(b *bytes.Buffer) { E2EProgressLine(b, 0, 500*time.Nanosecond) }, "0\t5.0E-4\n"},
		{"scientific from 10^7", func(b *bytes.Buffer) { E2EProgressLine(b, 0, 12345*time.Second) }, "0\t1.2345E7\n"},
		{"created topic", func(b *bytes.Buffer) { E2ETopicCreated(b, "e2e1", 1, 1) },
			"Topic \"e2e1\" does not exist. Will create topic with 1 partition(s) and replication factor = 1\n"},
		{"summary", func(b *bytes.Buffer) { E2ESummary(b, 2500, 2.4174e6*2500, 1, 11, 27) },
			"Avg latency: 2.4174 ms\nPercentiles: 50th = 1, 99th = 11, 99.9th = 27\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			tt.print(&b)
			if b.String() != tt.want {
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}

// E2EPercentile must pick what Java's latencies[(int)(n*q)] picks from the
// sorted array.
func TestE2EPercentile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		counts []int64
		q      float64
		want   int64
	}{
		{"empty", nil, 0.5, 0},
		{"one", []int64{0, 1}, 0.999, 1},
		{"median of 4 is the 3rd", []int64{0, 1, 1, 1, 1}, 0.5, 3},
		{"99th of 100", append(make([]int64, 5), 98, 1, 1), 0.99, 7},
		{"99th of 200", append(make([]int64, 5), 197, 2, 1), 0.99, 6},
		{"99.9th of 1000 is the last", append([]int64{999}, 1), 0.999, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := E2EPercentile(tt.counts, tt.q); got != tt.want {
				t.Errorf("E2EPercentile(%v, %v) = %d, want %d", tt.counts, tt.q, got, tt.want)
			}
		})
	}
}
