package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// The Apache tool's end-to-end lines.
var (
	e2eProgressRE = regexp.MustCompile(`^(\d+)\t(\d+\.\d+(E-?\d+)?)$`)
	e2eAvgRE      = regexp.MustCompile(`^Avg latency: \d+\.\d{4} ms$`)
	e2ePctRE      = regexp.MustCompile(`^Percentiles: 50th = (\d+), 99th = (\d+), 99\.9th = (\d+)$`)
)

// TestEndToEndSeedCommand runs seed 002's command (kafka-run-class.sh
// kafka.tools.EndToEndLatency BROKERS TOPIC 12000 1 4000, here with fewer
// records) in the positional form and the KIP-1172 named form.
func TestEndToEndSeedCommand(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	tests := []struct {
		name  string
		argv0 string
		args  func(topic string) []string
	}{
		{"positional, up to 4.1", "kbench", func(topic string) []string {
			return []string{"end-to-end-latency", bootstrap, topic, "2001", "1", "4000"}
		}},
		{"named, 4.2+, through a link", "/usr/local/bin/kafka-e2e-latency", func(topic string) []string {
			return []string{"--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "2001", "--producer-acks", "all",
				"--record-size", "4000", "--record-key-size", "16", "--num-headers", "1", "--record-header-key-size", "4", "--record-header-size", "8"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			topic := uniqueTopic(t, "e2e")
			st, stdout, stderr := consumerTestState()
			if code := run(t.Context(), append([]string{tt.argv0}, tt.args(topic)...), st); code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			want := `Topic "` + topic + `" does not exist. Will create topic with 1 partition(s) and replication factor = 1`
			if len(lines) != 6 || lines[0] != want {
				t.Fatalf("stdout:\n%s\nwant the topic line, 3 progress lines and 2 result lines", stdout)
			}
			for i, l := range lines[1:4] {
				m := e2eProgressRE.FindStringSubmatch(l)
				if m == nil || m[1] != []string{"0", "1000", "2000"}[i] {
					t.Errorf("progress line %q", l)
				}
			}
			if !e2eAvgRE.MatchString(lines[4]) {
				t.Errorf("average line %q", lines[4])
			}
			m := e2ePctRE.FindStringSubmatch(lines[5])
			if m == nil || len(m[1]) > len(m[2]) || (len(m[1]) == len(m[2]) && m[1] > m[2]) {
				t.Errorf("percentiles line %q: want 50th <= 99th", lines[5])
			}
		})
	}
}

func TestEndToEndJSON(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := uniqueTopic(t, "e2e-json")
	path := filepath.Join(t.TempDir(), "e2e.json")
	st, stdout, stderr := consumerTestState()
	if code := runKbench(t, st, "end-to-end-latency", bootstrap, topic, "500", "all", "100", "--json", path); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	doc, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	e := doc.EndToEnd
	if doc.Kind != result.KindEndToEnd || e == nil || e.Unit != "us" || e.Count != 500 {
		t.Fatalf("document kind %q, latency %+v", doc.Kind, e)
	}
	if e.Min < 0 || e.P50 > e.P99 || e.P99 > e.P999 || e.P999 > e.Max {
		t.Errorf("percentiles out of order: %+v", e)
	}
	if doc.Config["producer.acks"] != "all" || doc.Config["producer.linger.ms"] != "0" || doc.Config["consumer.enable.auto.commit"] != "false" {
		t.Errorf("config does not show the tool's settings: %v", doc.Config)
	}
	if doc.Topic == nil || doc.Topic.Partitions != 1 {
		t.Errorf("topic %+v, want the 1 partition the tool creates", doc.Topic)
	}
}

func TestEndToEndBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"acks 0", []string{"h:1", "t", "10", "0", "100"}, "Please use '1' or 'all'."},
		{"three positional", []string{"h:1", "t", "10"}, "Expected 5 or 6 positional arguments, but got 3."},
		{"missing named", []string{"--bootstrap-server", "h:1"}, `Missing required argument "[topic]"`},
		{"missing properties file", []string{"h:1", "t", "10", "1", "100", filepath.Join(t.TempDir(), "none.properties")}, "none.properties"},
		// Regression: the tool's own auto.offset.reset replaced a mistyped one without a word.
		{"mistyped auto.offset.reset", []string{"h:1", "t", "10", "1", "100", "--command-property", "auto.offset.reset=smallest"},
			"auto.offset.reset=smallest: invalid value: did you mean earliest?"},
		{"no port", []string{"localhost", "t", "10", "1", "100"}, `broker_list: bootstrap.servers=localhost: invalid value: "localhost" is not HOST:PORT`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _, stderr := consumerTestState()
			if code := runKbench(t, st, append([]string{"end-to-end-latency"}, tt.args...)...); code != exitUsage || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.wantStderr)
			}
		})
	}
}
