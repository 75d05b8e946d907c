package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// The Apache tool's consumer lines, as scripts parse them.
var (
	consumerHeader   = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
	detailedHeader   = "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
	dateRE           = `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}`
	num4RE           = `(\d+\.\d{4}|NaN|Infinity)`
	consumerCSVRE    = regexp.MustCompile(`^` + dateRE + `, ` + dateRE + `, ` + num4RE + `, ` + num4RE + `, (\d+), ` + num4RE + `, (\d+), (-?\d+), ` + num4RE + `, ` + num4RE + `$`)
	consumerDetailRE = regexp.MustCompile(`^` + dateRE + `, 0, ` + num4RE + `, ` + num4RE + `, \d+, ` + num4RE + `, \d+, -?\d+, ` + num4RE + `, ` + num4RE + `$`)
)

// consumerTestState is a test state whose GOGC is set, so that parallel
// runs leave the test binary's garbage collector alone.
func consumerTestState() (*state, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	}
	return &state{stdout: &stdout, stderr: &stderr, getenv: getenv}, &stdout, &stderr
}

// consumerTopic creates a topic and fills it with n records of 100 bytes.
func consumerTopic(t *testing.T, bootstrap string, partitions int32, n int) string {
	t.Helper()
	topic := uniqueTopic(t, "consumer")
	testkafka.Topic(t, bootstrap, topic, partitions, n, 100)
	return topic
}

// TestConsumerPerfSeedCommands runs the consumer commands of seeds 000 and
// 002 as written there, with only the bootstrap address changed (and the
// record counts scaled to the test topic), through links named like the
// Apache tool, and checks the output line by line.
func TestConsumerPerfSeedCommands(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	const n = 20000
	one := consumerTopic(t, bootstrap, 1, n)
	three := consumerTopic(t, bootstrap, 3, n)
	tests := []struct {
		name     string
		argv0    string
		args     []string
		warnings []string // Java's stdout warnings, before the header
	}{
		{"seed 000: --broker-list=, --threads", "kafka-consumer-perf-test",
			[]string{"--topic", one, "--messages", "20000", "--threads", "1", "--broker-list=" + bootstrap},
			[]string{"Warning: --messages is deprecated. Use --num-records instead."}},
		{"seed 002: kafka-consumer-perf-test.sh", "/opt/kafka/bin/kafka-consumer-perf-test.sh",
			[]string{"--broker-list", bootstrap, "--topic", one, "--messages", "20000"},
			[]string{"Warning: --messages is deprecated. Use --num-records instead."}},
		{"4.2 names", "kbench",
			[]string{"consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", one, "--num-records", "20000",
				"--command-property", "client.id=perf-test", "--group", uniqueTopic(t, "g")}, nil},
		{"three threads on three partitions", "kbench",
			[]string{"consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", three, "--num-records", "20000", "--threads", "3"}, nil},
		{"assigned directly", "kbench",
			[]string{"consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", three, "--num-records", "20000", "--threads", "2", "--assign"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := consumerTestState()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if code := run(ctx, append([]string{tt.argv0}, tt.args...), st); code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			want := append(append([]string(nil), tt.warnings...), consumerHeader)
			if len(lines) != len(want)+1 {
				t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want)+1, stdout)
			}
			for i, w := range want {
				if lines[i] != w {
					t.Errorf("line %d = %q, want %q", i+1, lines[i], w)
				}
			}
			m := consumerCSVRE.FindStringSubmatch(lines[len(lines)-1])
			if m == nil {
				t.Fatalf("values line %q is not in the Apache format", lines[len(lines)-1])
			}
			// 20000 records of 100 bytes: 1.9073 MB.
			if m[1] != "1.9073" || m[3] != "20000" {
				t.Errorf("values line %q: want 1.9073 MB and 20000 records", lines[len(lines)-1])
			}
		})
	}
}

func TestConsumerPerfDetailedStatsAndJSON(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := consumerTopic(t, bootstrap, 2, 20000)
	path := filepath.Join(t.TempDir(), "consumer.json")
	st, stdout, stderr := consumerTestState()
	code := runKbench(t, st, "consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "20000",
		"--show-detailed-stats", "--reporting-interval", "1", "--max.poll.records=10", "--json", path)
	if code != exitUsage || !strings.Contains(stderr.String(), "unknown option --max.poll.records") || stdout.Len() != 0 {
		t.Fatalf("a misplaced property: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	st, stdout, stderr = consumerTestState()
	code = runKbench(t, st, "consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "20000",
		"--show-detailed-stats", "--reporting-interval", "1", "--command-property", "max.poll.records=10", "--json", path)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if lines[0] != detailedHeader {
		t.Errorf("header %q, want %q", lines[0], detailedHeader)
	}
	for _, l := range lines[1:] {
		if !consumerDetailRE.MatchString(l) {
			t.Errorf("detailed line %q is not in the Apache format", l)
		}
	}
	doc, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != result.KindConsumerPerf || doc.Status != result.StatusOK || doc.Consumer == nil || doc.Consumer.Records != 20000 {
		t.Fatalf("document: kind %q status %q consumer %+v", doc.Kind, doc.Status, doc.Consumer)
	}
	if doc.Topic == nil || doc.Topic.Name != topic || doc.Topic.Partitions != 2 {
		t.Errorf("topic %+v", doc.Topic)
	}
	// The records were produced before the run: each is measured, or
	// counted as backlog when sent over a second before the consumer began.
	e := doc.EndToEnd
	if e == nil || e.Count+e.Backlog != 20000 || e.Source != "timestamp" || e.Min < 0 || e.P50 > e.P99 || e.P99 > e.Max {
		t.Errorf("end-to-end latency %+v: want 20000 records measured or in the backlog, ordered and non-negative", e)
	}
	if doc.Config["max.poll.records"] != "10" || doc.Config["check.crcs"] != "false" || doc.Config["client.id"] != "perf-consumer-client" {
		t.Errorf("config does not show the tool's settings: %v", doc.Config)
	}
}

// Asking for more records than the topic holds ends on --timeout: the
// Apache warning, the values line with what was consumed, and with
// --strict exit 1 (without it, exit 0 as the Apache tool: its own test). The
// timeout counts from the start, group join included (as in the Apache
// tool), so it must leave room for a join on a busy machine: with 1 s the
// test failed under parallel load, consuming nothing.
func TestConsumerPerfTimeout(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := consumerTopic(t, bootstrap, 1, 500)
	st, stdout, stderr := consumerTestState()
	start := time.Now()
	code := runKbench(t, st, "consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic, "--messages", "600", "--timeout", "5000", "--strict")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailure, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	want := "WARNING: Exiting before consuming the expected number of records: timeout (5000 ms) exceeded. You can use the --timeout option to increase the timeout."
	if len(lines) != 4 || lines[2] != want {
		t.Fatalf("stdout:\n%s\nwant the warning as line 3 of 4", stdout)
	}
	if m := consumerCSVRE.FindStringSubmatch(lines[3]); m == nil || m[3] != "500" {
		t.Errorf("values line %q: want 500 records", lines[3])
	}
	if !strings.Contains(stderr.String(), "consumed 500 of 600 records") {
		t.Errorf("stderr %q does not say what was consumed", stderr)
	}
	hangGuard(t, time.Since(start), 30*time.Second, "with a 5 s --timeout")
}

func TestConsumerPerfBadInput(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"missing topic fails fast", []string{"--bootstrap-server", bootstrap, "--topic", uniqueTopic(t, "absent"), "--num-records", "10"},
			exitUsage, "does not exist: check the name, or create it first"},
		{"no broker", []string{"--bootstrap-server", "127.0.0.1:1", "--topic", "t", "--num-records", "10"},
			exitFailure, "cannot reach the Kafka cluster at 127.0.0.1:1"},
		{"no bootstrap", []string{"--topic", "t", "--num-records", "10"}, exitUsage, "no bootstrap servers"},
		{"no count", []string{"--bootstrap-server", bootstrap, "--topic", "t"}, exitUsage, "argument --num-records is required"},
		{"bad property", []string{"--bootstrap-server", bootstrap, "--topic", "t", "--num-records", "10", "--command-property", "max.poll.records=0"},
			exitUsage, "max.poll.records"},
		// Regression: the tool's own auto.offset.reset replaced a mistyped one without a word.
		{"mistyped auto.offset.reset", []string{"--bootstrap-server", bootstrap, "--topic", "t", "--num-records", "10", "--command-property", "auto.offset.reset=begin"},
			exitUsage, "--command-property: auto.offset.reset=begin: invalid value: did you mean earliest?"},
		// Regression: a bad port was tried for the whole connect timeout.
		{"port 0", []string{"--bootstrap-server", "127.0.0.1:0", "--topic", "t", "--num-records", "10"},
			exitUsage, `--bootstrap-server: bootstrap.servers=127.0.0.1:0: invalid value: "127.0.0.1:0": port "0"`},
		// Regression: illegal topic names were accepted.
		{"illegal topic", []string{"--bootstrap-server", bootstrap, "--topic", "a b", "--num-records", "10"},
			exitUsage, `topic name "a b" contains ' '`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := consumerTestState()
			start := time.Now()
			code := runKbench(t, st, append([]string{"consumer-perf-test"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tt.wantCode, tt.wantStderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("nothing ran, yet stdout has %q", stdout)
			}
			hangGuard(t, time.Since(start), 10*time.Second, "to fail before anything ran")
		})
	}
}

func TestConsumerPerfHelp(t *testing.T) {
	t.Parallel()
	st, stdout, _ := consumerTestState()
	if code := runKbench(t, st, "consumer-perf-test", "--help"); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, opt := range []string{"--broker-list", "--messages", "--num-records", "--threads", "--include", "--command-property", "--json FILE", "[kbench] Write the result document"} {
		if !strings.Contains(stdout.String(), opt) {
			t.Errorf("help does not mention %s", opt)
		}
	}
}
