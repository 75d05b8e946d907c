package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputMessages: regressions, each a usage error (exit 2) that said
// the wrong thing or nothing: a tab in a plan gave no column and did not
// name the tab; --set 'matrix.size={}' was blamed on the plan's line; a
// negative --metrics-hold passed --dry-run; --dry-run passed an end-to-end
// workload whose topic the plan does not prepare (the run then failed);
// --local-kafka-version was named --kafka-version; an overflowing
// --duration was "not a positive duration". None contacts a broker.
func TestInputMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.yaml", `name: m
cluster: {bootstrap: "127.0.0.1:1"}
topics: [{name: t, partitions: 1}]
workloads:
  - {name: p, type: produce, topic: t, message: {size: "${size}"}, records: 10}
matrix: {size: [10, 100]}
`)
	tab := write("tab.yaml", "name: m\nworkloads:\n\t- {name: p, type: produce, topic: t, message: {size: 10}, records: 10}\n")
	e2e := write("e2e.yaml", `name: m
cluster: {bootstrap: "127.0.0.1:1"}
topics: [{name: prepared, partitions: 1}]
workloads:
  - {name: e, type: end-to-end, topic: other, message: {size: 10}, records: 10, rate: 10/s}
`)
	producer := []string{"producer-perf-test", "--topic", "t", "--record-size", "10", "--throughput", "-1", "--bootstrap-server", "127.0.0.1:1"}
	tests := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"tab", []string{"run", tab, "--dry-run"}, tab + ":3:1: YAML syntax error: a tab character; YAML indents with spaces only", ""},
		{"empty matrix list by --set", []string{"run", good, "--dry-run", "--set", "matrix.size={}"},
			"--set matrix.size={}: matrix.size: is an empty list", good + ":"},
		{"negative --metrics-hold", []string{"run", good, "--dry-run", "--metrics-hold", "-5s"}, "--metrics-hold -5s: must not be negative", ""},
		{"end-to-end topic not prepared", []string{"run", e2e, "--dry-run"},
			e2e + `:5:40: workloads[0].topic: "other" is not in topics; an end-to-end workload reads its topic from the start`, ""},
		{"--local-kafka-version", []string{"producer-perf-test", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1",
			"--local", "--local-kafka-version", "9.9.9"}, `--local-kafka-version "9.9.9": only Apache Kafka 4.x versions`, "--kafka-version"},
		{"producer --duration overflow", append(producer, "--duration", "99999999h"),
			`option --duration: "99999999h" is longer than 2562047h (about 292 years)`, "not a positive duration"},
		{"consumer --duration overflow", []string{"consumer-perf-test", "--topic", "t", "--bootstrap-server", "127.0.0.1:1", "--duration", "99999999h"},
			`option --duration: "99999999h" is longer than 2562047h`, "not a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _, stderr := consumerTestState()
			st.cacheDir, st.stateDir = t.TempDir(), t.TempDir() // --local must not get as far as fetching
			code := runKbench(t, st, tt.args...)
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, exitUsage, tt.want)
			}
			if tt.not != "" && strings.Contains(stderr.String(), tt.not) {
				t.Errorf("stderr %q still says %q", stderr, tt.not)
			}
		})
	}
}
