package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/testkafka"
)

// The conformance set (tests named TestConformance*) runs on real Kafka,
// which the rest of the suite does without: each drop-in against the
// Apache tool's own lines, the share drop-in against Java's, an OMB run,
// the fault tests (TestConformanceFaultCluster), security
// (TestConformanceSecurity), a plan's own cluster
// (TestConformancePlanOwnCluster) and the schema registry. go test -short
// skips it: it starts Java.

// javaTool runs one of Apache Kafka's tools (the class a kafka-*.sh script
// starts) from the jars kbench fetched, with the scripts' 512 MB heap, and
// returns its stdout.
func javaTool(t *testing.T, class string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dist, err := cluster.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, java, append([]string{"-Xmx512M", "-cp", dist.Classpath(), class}, args...)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", class, err, out, stderr.String())
	}
	return string(out)
}

var (
	dateShapeRE   = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{3}`)
	numberShapeRE = regexp.MustCompile(`NaN|-?\d+(\.\d+)?`)
)

// shapes is each line of a tool's output with its dates and numbers
// replaced ("D", "#"): what a script parsing the lines depends on. Lines
// the tool prints once per reporting interval (whether a short run gets
// one depends on timing) are left out when periodic matches them.
func shapes(out string, periodic *regexp.Regexp) []string {
	var s []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if periodic != nil && periodic.MatchString(line) {
			continue
		}
		s = append(s, numberShapeRE.ReplaceAllString(dateShapeRE.ReplaceAllString(line, "D"), "#"))
	}
	return s
}

// TestConformanceDropInsMatchJava: each drop-in, run with the same flags
// as the Apache tool it replaces against the same real broker, prints the
// same lines, numbers aside, in the same order; the records it reports
// are the records the topic holds; and its JSON names the brokers'
// release.
func TestConformanceDropInsMatchJava(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	const records = "100000"
	javaTopic, kbenchTopic := uniqueTopic(t, "java-produced"), uniqueTopic(t, "kbench-produced")
	producer := func(topic string) []string {
		return []string{"--topic", topic, "--num-records", records, "--record-size", "100", "--throughput", "-1",
			"--producer-props", "bootstrap.servers=" + bootstrap, "acks=1"}
	}

	t.Run("producer-perf-test", func(t *testing.T) {
		java := javaTool(t, "org.apache.kafka.tools.ProducerPerformance", producer(javaTopic)...)
		json := filepath.Join(t.TempDir(), "r.json")
		st, stdout, stderr := clusterTestState(t)
		if code := runKbench(t, st, append([]string{"producer-perf-test"}, append(producer(kbenchTopic), "--json", json)...)...); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		window := regexp.MustCompile(`^\d+ records sent, [\d.]+ records/sec \(`)
		if j, k := shapes(java, window), shapes(stdout.String(), window); !slices.Equal(j, k) {
			t.Errorf("line shapes differ\nJava:\n%s\nkbench:\n%s", strings.Join(j, "\n"), strings.Join(k, "\n"))
		}
		if final := checkProducerOutput(t, stdout.String()); final != 100000 {
			t.Errorf("final line claims %d records", final)
		}
		if total, _ := topicRecords(t, bootstrap, kbenchTopic); total != 100000 {
			t.Errorf("the topic holds %d records, the line says 100000", total)
		}
		doc := readDoc(t, json)
		if len(doc.BrokerVersions) != 1 || !strings.HasPrefix(doc.BrokerVersions[0], "v4.") {
			t.Errorf("broker versions %q: the result records the release it measured", doc.BrokerVersions)
		}
	})

	t.Run("consumer-perf-test", func(t *testing.T) {
		args := func(group string) []string {
			return []string{"--bootstrap-server", bootstrap, "--topic", kbenchTopic, "--num-records", records, "--group", group}
		}
		java := javaTool(t, "org.apache.kafka.tools.ConsumerPerformance", args(uniqueTopic(t, "java-group"))...)
		st, stdout, stderr := clusterTestState(t)
		if code := runKbench(t, st, append([]string{"consumer-perf-test"}, args(uniqueTopic(t, "kbench-group"))...)...); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if j, k := shapes(java, nil), shapes(stdout.String(), nil); !slices.Equal(j, k) {
			t.Errorf("line shapes differ\nJava:\n%s\nkbench:\n%s", strings.Join(j, "\n"), strings.Join(k, "\n"))
		}
		if !strings.Contains(stdout.String(), ", "+records+", ") {
			t.Errorf("kbench did not read the %s records:\n%s", records, stdout)
		}
	})

	t.Run("end-to-end-latency", func(t *testing.T) {
		args := func(topic string) []string {
			return []string{"--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "2000", "--producer-acks", "1", "--record-size", "100"}
		}
		// The topics exist first: Java's tool, creating one, assigns its
		// partitions before the broker has them and fails now and then
		// ("Consumer is not subscribed to any topics").
		jt, kt := uniqueTopic(t, "java-e2e"), uniqueTopic(t, "kbench-e2e")
		testkafka.Topic(t, bootstrap, jt, 1, 0, 0)
		testkafka.Topic(t, bootstrap, kt, 1, 0, 0)
		java := javaTool(t, "org.apache.kafka.tools.EndToEndLatency", args(jt)...)
		st, stdout, stderr := clusterTestState(t)
		if code := runKbench(t, st, append([]string{"end-to-end-latency"}, args(kt)...)...); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		j, k := shapes(java, nil), shapes(stdout.String(), nil)
		if !slices.Equal(j, k) {
			t.Errorf("line shapes differ\nJava:\n%s\nkbench:\n%s", strings.Join(j, "\n"), strings.Join(k, "\n"))
		}
	})
}
