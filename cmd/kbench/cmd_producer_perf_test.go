package main

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// The Apache tool's output lines, as scripts parse them.
var (
	windowLineRE = regexp.MustCompile(`^\d+ records sent, \d+\.\d records/sec \(\d+\.\d{2} MB/sec\), (\d+\.\d|NaN) ms avg latency, \d+\.\d ms max latency\.$`)
	totalLineRE  = regexp.MustCompile(`^(\d+)( steady state)? records sent, \d+\.\d{6} records/sec \(\d+\.\d{2} MB/sec\), (\d+\.\d{2}|NaN) ms avg latency, \d+\.\d{2} ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th\.$`)
)

// TestProducerPerfSeedCommands runs the producer commands of seeds 000, 001
// and 002 as written there, with two changes only: the bootstrap address,
// and --num-records scaled down to fit CI (bench/studies.sh runs them whole).
// The topic must then hold exactly the records the final line claims.
func TestProducerPerfSeedCommands(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	payloadFile, err := filepath.Abs("testdata/payload_test.json")
	if err != nil {
		t.Fatal(err)
	}
	payloadSizes := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, payloadFile)), "\n") {
		payloadSizes[len(line)] = true
	}
	tests := []struct {
		seed    string
		argv0   string
		records int64
		size    int // 0: sizes from the payload file
		args    []string
	}{
		{"000 snappy batch.size=8196", "kafka-producer-perf-test", 200000, 250, []string{
			"--topic", "performancetest", "--num-records", "200000", "--record-size", "250", "--throughput", "1000000",
			"--producer-props", "acks=1", "buffer.memory=67108864", "compression.type=snappy", "batch.size=8196", "bootstrap.servers=" + bootstrap}},
		{"000 print-metrics", "kafka-producer-perf-test", 300000, 10, []string{
			"--topic", "performancetest", "--num-records", "300000", "--record-size", "10", "--throughput", "5000000",
			"--print-metrics", "--producer-props", "bootstrap.servers=" + bootstrap}},
		{"001 fixed rate", "kafka-producer-perf-test", 100000, 1000, []string{
			"--topic", "performancetest", "--num-records", "100000", "--record-size", "1000", "--throughput", "100000",
			"--producer-props", "bootstrap.servers=" + bootstrap}},
		{"002 payload file", "kafka-producer-perf-test.sh", 25000, 0, []string{
			"--topic", "kafka-test", "--num-records", "25000", "--payload-file", payloadFile, "--throughput", "25000",
			"--producer-props", "acks=1", "bootstrap.servers=" + bootstrap, "--print-metrics"}},
		{"002 4000 bytes", "kafka-producer-perf-test.sh", 25000, 4000, []string{
			"--topic", "kafka_test_1", "--num-records", "25000", "--record-size", "4000", "--throughput", "25000",
			"--producer-props", "acks=1", "bootstrap.servers=" + bootstrap, "--print-metrics"}},
	}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			t.Parallel()
			// Each case gets a topic of its own so that counts are exact.
			topic := uniqueTopic(t, tt.args[1])
			args := append([]string{}, tt.args...)
			args[1] = topic
			st, stdout, stderr := clusterTestState(t)
			ctx := t.Context()
			if code := run(ctx, append([]string{"/usr/bin/" + tt.argv0}, args...), st); code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			final := checkProducerOutput(t, stdout.String())
			if final != tt.records {
				t.Fatalf("final line claims %d records, want %d", final, tt.records)
			}
			total, bySize := topicRecords(t, bootstrap, topic)
			if total != tt.records {
				t.Fatalf("topic holds %d records, the tool claimed %d", total, tt.records)
			}
			for size, n := range bySize {
				if (tt.size > 0 && size != tt.size) || (tt.size == 0 && !payloadSizes[size]) {
					t.Fatalf("topic holds %d records of %d bytes, not sizes the command sends", n, size)
				}
			}
			if strings.Contains(strings.Join(args, " "), "--print-metrics") {
				want := "record-send-total:{client-id=perf-producer-client}"
				if !strings.Contains(stdout.String(), "Metric Name") || !regexp.MustCompile(regexp.QuoteMeta(want)+` +: `+strconv.FormatInt(tt.records, 10)+`\.000\n`).MatchString(stdout.String()) {
					t.Fatalf("metrics table missing or record-send-total != %d:\n%s", tt.records, stdout)
				}
			}
		})
	}
}

// checkProducerOutput checks every line against the Apache formats and
// returns the record count of the final line.
func checkProducerOutput(t *testing.T, out string) int64 {
	t.Helper()
	var final int64 = -1
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case totalLineRE.MatchString(line):
			m := totalLineRE.FindStringSubmatch(line)
			if m[2] == "" {
				final, _ = strconv.ParseInt(m[1], 10, 64)
			}
			p50, _ := strconv.Atoi(m[4])
			p999, _ := strconv.Atoi(m[7])
			if p50 > p999 {
				t.Fatalf("percentiles out of order: %s", line)
			}
		case windowLineRE.MatchString(line):
		case line == "Metric Name" || strings.HasPrefix(line, "Metric Name "):
			return final // the metrics table follows; its format has its own test
		case strings.HasPrefix(line, "Reading payloads from: "), strings.HasPrefix(line, "Number of records read: "),
			strings.HasPrefix(line, "Option --producer-props has been deprecated"),
			strings.HasPrefix(line, "Warmup first "), line == "In steady state.", line == "":
		default:
			t.Fatalf("line not in the Apache tool's format: %q\nfull output:\n%s", line, out)
		}
	}
	if final < 0 {
		t.Fatalf("no final summary line in:\n%s", out)
	}
	return final
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestProducerPerfJSONAndWarmup checks the result document and the
// steady-state line of --warmup-records.
func TestProducerPerfJSONAndWarmup(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := uniqueTopic(t, "json")
	out := filepath.Join(t.TempDir(), "r.json")
	st, stdout, stderr := clusterTestState(t)
	code := runKbench(t, st, "producer-perf-test", "--topic", topic, "--num-records", "50000", "--record-size", "100",
		"--throughput", "-1", "--warmup-records", "10000", "--producers", "2", "--partitions", "3",
		"--command-property", "acks=all", "linger.ms=1", "sasl.jaas.config=s3cr3t-v4lue", "--bootstrap-server", bootstrap, "--json", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if !strings.HasPrefix(lines[0], "Warmup first 10000 records.") {
		t.Fatalf("first line %q", lines[0])
	}
	if m := totalLineRE.FindStringSubmatch(lines[len(lines)-1]); m == nil || m[1] != "40000" || m[2] != " steady state" {
		t.Fatalf("last line %q, want the steady-state summary of 40000 records", lines[len(lines)-1])
	}
	checkProducerOutput(t, stdout.String())
	doc, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Producer
	switch {
	case doc.Kind != result.KindProducerPerf || doc.Status != result.StatusOK:
		t.Fatalf("kind %q status %q", doc.Kind, doc.Status)
	case doc.Topic.Name != topic || doc.Topic.Partitions != 3:
		t.Fatalf("topic %+v", doc.Topic)
	case p.Records != 50000 || p.Bytes != 5_000_000 || p.Failed != 0 || p.Clients != 2:
		t.Fatalf("producer %+v", p)
	case p.LatencyFrom != "send" || p.Latency.Unit != "us" || p.Latency.Count != 50000:
		t.Fatalf("latency %+v", p.Latency)
	case !(p.Latency.Min <= p.Latency.P50 && p.Latency.P50 <= p.Latency.P99 && p.Latency.P99 <= p.Latency.P999 && p.Latency.P999 <= p.Latency.Max):
		t.Fatalf("percentiles out of order: %+v", p.Latency)
	case p.SteadyState == nil || p.SteadyState.Records != 40000:
		t.Fatalf("steady state %+v", p.SteadyState)
	case doc.Config["acks"] != "all" || doc.Config["kbench.warmup.records"] != "10000":
		t.Fatalf("config: %v", doc.Config)
	case strings.Contains(readFile(t, out), "s3cr3t-v4lue"):
		t.Fatal("a secret property value reached the result document")
	case p.CPUSeconds <= 0:
		t.Fatal("no CPU time recorded")
	case len(doc.BrokerVersions) != 1:
		// The release itself is checked on real Kafka (TestConformanceDropInsMatchJava).
		t.Fatalf("broker versions %q: the result records the release it measured", doc.BrokerVersions)
	}
	h, err := p.Latency.Decode()
	if err != nil || h.Count() != 50000 || h.Max() != p.Latency.Max || h.Sum() != p.Latency.Sum {
		t.Fatalf("histogram: %v count %d max %d", err, h.Count(), h.Max())
	}
}

// TestProducerPerfBadInput: every bad input is a clear error with exit code
// 2 (1 for an unreachable cluster), never a hang.
func TestProducerPerfBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"producer-perf-test", "--topic", "t", "--num-records", "10", "--throughput", "-1"}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"unknown flag", append(base, "--record-size", "10", "--bootstrap-server", "127.0.0.1:1", "--num-thread", "3"), exitUsage,
			[]string{"unknown option --num-thread"}},
		{"acks=2", append(base, "--record-size", "10", "--producer-props", "bootstrap.servers=127.0.0.1:1", "acks=2"), exitUsage,
			[]string{"acks=2", "allowed: 0, 1, all, -1"}},
		{"compression brotli", append(base, "--record-size", "10", "--producer-props", "bootstrap.servers=127.0.0.1:1", "compression.type=brotli"), exitUsage,
			[]string{"compression.type=brotli", "gzip"}},
		{"linger abc", append(base, "--record-size", "10", "--producer-props", "bootstrap.servers=127.0.0.1:1", "linger.ms=abc"), exitUsage,
			[]string{"linger.ms=abc"}},
		{"empty payload file", append(base, "--payload-file", empty, "--bootstrap-server", "127.0.0.1:1"), exitUsage,
			[]string{"--payload-file", "empty"}},
		{"missing payload file", append(base, "--payload-file", filepath.Join(dir, "nope"), "--bootstrap-server", "127.0.0.1:1"), exitUsage,
			[]string{"--payload-file", "does not exist"}},
		{"unreadable payload file", append(base, "--payload-file", dir, "--bootstrap-server", "127.0.0.1:1"), exitUsage,
			[]string{"--payload-file", "is a directory"}},
		{"two payload kinds", append(base, "--record-size", "10", "--payload-monotonic", "--bootstrap-server", "127.0.0.1:1"), exitUsage,
			[]string{"exactly one of --record-size, --payload-file or --payload-monotonic"}},
		{"no bootstrap", append(base, "--record-size", "10"), exitUsage,
			[]string{"no bootstrap servers", "--local"}},
		{"bad record size", append(base, "--record-size", "0", "--bootstrap-server", "127.0.0.1:1"), exitUsage,
			[]string{"--record-size should be greater than zero"}},
		{"unreachable", append(base, "--record-size", "10", "--bootstrap-server", "127.0.0.1:1"), exitFailure,
			[]string{"cannot reach the Kafka cluster at 127.0.0.1:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := clusterTestState(t)
			code := runKbench(t, st, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
		})
	}
}

// TestProducerPerfSilentBroker: a listener that accepts connections and
// never answers must give a clear error within the 15 s connect bound.
func TestProducerPerfSilentBroker(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	st, _, stderr := clusterTestState(t)
	start := time.Now()
	code := runKbench(t, st, "producer-perf-test", "--topic", "t", "--num-records", "10", "--throughput", "-1",
		"--record-size", "10", "--bootstrap-server", ln.Addr().String())
	// The bound: the 15 s connect check.
	hangGuard(t, time.Since(start), 30*time.Second, "to give up on a silent broker; bound 15 s")
	if code != exitFailure || !strings.Contains(stderr.String(), "cannot reach the Kafka cluster") {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
}

// TestProducerPerfTopicNotAutoCreated: a broker that does not auto-create
// topics gives a clear error; --partitions lets kbench create the topic.
func TestProducerPerfTopicNotAutoCreated(t *testing.T) {
	t.Parallel()
	c := newFakeBroker(t, true) // auto.create.topics.enable=false
	st, stdout, stderr := clusterTestState(t)
	args := []string{"producer-perf-test", "--topic", "absent", "--num-records", "1000", "--record-size", "10",
		"--throughput", "-1", "--bootstrap-server", c.Bootstrap()}
	if code := runKbench(t, st, args...); code != exitUsage || !strings.Contains(stderr.String(), `topic "absent" does not exist and the broker did not create it`) || stdout.Len() != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	st, stdout, stderr = clusterTestState(t)
	if code := runKbench(t, st, append(args, "--partitions", "2")...); code != exitOK {
		t.Fatalf("with --partitions: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if total, _ := topicRecords(t, c.Bootstrap(), "absent"); total != 1000 {
		t.Fatalf("topic holds %d records, want 1000", total)
	}
}

// TestProducerPerfBrokerKilled: a broker killed mid-run is reported: errors
// counted, the final line printed, the result written, a non-zero exit.
func TestProducerPerfBrokerKilled(t *testing.T) {
	t.Parallel()
	c := newFakeBroker(t)
	out := filepath.Join(t.TempDir(), "r.json")
	st, _, _ := clusterTestState(t)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	st.stdout, st.stderr = stdout, stderr
	go func() {
		// Kill once records are flowing: two progress lines at 1s intervals.
		if !waitFor(t, time.Minute, func() bool { return strings.Count(stdout.String(), "records sent") >= 2 }) {
			t.Errorf("no progress lines before the kill:\n%s\n%s", stdout, stderr)
		}
		c.Kill()
	}()
	start := time.Now()
	code := runKbench(t, st, "producer-perf-test", "--topic", "killed", "--num-records", "400000", "--record-size", "100",
		"--throughput", "20000", "--reporting-interval", "1000", "--json", out,
		"--producer-props", "bootstrap.servers="+c.Bootstrap(), "delivery.timeout.ms=4000", "request.timeout.ms=2000", "linger.ms=5")
	// Two progress lines, then the 4 s stall bound.
	hangGuard(t, time.Since(start), 90*time.Second, "run with its broker killed; bound: a few seconds of sending and the 4 s stall bound")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailure, stdout, stderr)
	}
	final := checkProducerOutput(t, stdout.String())
	if final <= 0 || final >= 400000 {
		t.Fatalf("final line claims %d records: want some but not all", final)
	}
	if !regexp.MustCompile(`\d+ of 400000 records failed \(`).MatchString(stderr.String()) {
		t.Fatalf("stderr does not report the failed records:\n%s", stderr)
	}
	doc, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	// The 4 s delivery timeout is also the run's stall bound: it ends 4 s
	// after the last acknowledgement, the records it did not send counted.
	if p := doc.Producer; doc.Status != result.StatusFailed || p.Failed == 0 || p.Records != final ||
		p.Failed+p.Records+p.NotSent != 400000 {
		t.Fatalf("result: status %q records %d failed %d not sent %d", doc.Status, p.Records, p.Failed, p.NotSent)
	}
}

// TestUnknownCommand guards against cobra's default of printing help, with
// exit code 0, for an unknown command.
func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	st, stdout, stderr := clusterTestState(t)
	if code := runKbench(t, st, "nosuch", "arg"); code != exitUsage || !strings.Contains(stderr.String(), `unknown command "nosuch"`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	st, _, stderr = clusterTestState(t)
	if code := runKbench(t, st, "producr-perf-test"); code != exitUsage || !strings.Contains(stderr.String(), `did you mean "producer-perf-test"`) {
		t.Fatalf("typo: exit %d, stderr %s", code, stderr)
	}
	st, stdout, _ = clusterTestState(t)
	if code := runKbench(t, st); code != exitOK || !strings.Contains(stdout.String(), "producer-perf-test") {
		t.Fatalf("no command: exit %d, stdout %s; want the help", code, stdout)
	}
}

func TestCommandArgsBusybox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"kbench", "size"}, []string{"size"}},
		{[]string{"/opt/bin/kafka-producer-perf-test", "--topic", "x"}, []string{"producer-perf-test", "--topic", "x"}},
		{[]string{"./kafka-producer-perf-test.sh"}, []string{"producer-perf-test"}},
		{[]string{"kafka-consumer-perf-test.sh", "--help"}, []string{"consumer-perf-test", "--help"}},
		{[]string{"kafka-console-producer"}, nil},
		{[]string{"./kafka-run-class.sh", "kafka.tools.EndToEndLatency", "b:9092", "t", "12000", "1", "4000"},
			[]string{"end-to-end-latency", "b:9092", "t", "12000", "1", "4000"}},
		{[]string{"kafka-run-class", "org.apache.kafka.tools.ConsumerPerformance", "--topic", "t"}, []string{"consumer-perf-test", "--topic", "t"}},
		// Other classes fall through to cobra, which rejects them as unknown commands.
		{[]string{"kafka-run-class.sh", "kafka.Kafka", "server.properties"}, []string{"kafka.Kafka", "server.properties"}},
	}
	for _, tt := range tests {
		got := commandArgs(tt.argv)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("commandArgs(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
