package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/testkafka"
)

// TestProducerPerfPrintMetricsTable: regression: --print-metrics printed
// 31 of the producer-metrics rows of the Java tool. Against a real broker,
// with a buffer small enough to fill, every row of Kafka 4's producer is
// printed: the buffer's waits, record sizes and requests in flight
// measured, and NaN, as Java prints a metric without a value, for what
// franz-go's hooks cannot give.
func TestProducerPerfPrintMetricsTable(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	st, stdout, stderr := clusterTestState(t)
	topic := uniqueTopic(t, "print-metrics")
	if code := run(t.Context(), []string{"kafka-producer-perf-test", "--topic", topic, "--num-records", "200000", "--record-size", "100",
		"--throughput", "-1", "--print-metrics", "--producer-props", "bootstrap.servers=" + bootstrap, "buffer.memory=65536", "acks=1"}, st); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	row := regexp.MustCompile(`(?m)^producer-metrics:([a-z-]+):\{client-id=perf-producer-client\} +: (\S+)$`)
	got := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(stdout.String(), -1) {
		got[m[1]] = m[2]
	}
	if len(got) != 72 {
		t.Errorf("%d producer-metrics rows, want the 72 of Kafka 4's producer:\n%s", len(got), stdout)
	}
	num := func(name string) float64 {
		v, err := strconv.ParseFloat(got[name], 64)
		if err != nil {
			t.Fatalf("%s = %q, want a number", name, got[name])
		}
		return v
	}
	if v := num("record-size-avg"); v != 186 { // 61 + 21 + 1 + 2 + 100 + 1, as Java estimates a 100-byte record
		t.Errorf("record-size-avg = %v, want 186", v)
	}
	if num("bufferpool-wait-time-ns-total") <= 0 || num("bufferpool-wait-ratio") <= 0 {
		t.Errorf("an unlimited rate into a 64 KiB buffer never waited: %s, ratio %s", got["bufferpool-wait-time-ns-total"], got["bufferpool-wait-ratio"])
	}
	for name, want := range map[string]float64{"requests-in-flight": 0, "waiting-threads": 0, "buffer-available-bytes": 65536, "buffer-exhausted-total": 0, "batch-split-total": 0} {
		if v := num(name); v != want {
			t.Errorf("%s = %v after the run, want %v", name, v, want)
		}
	}
	for _, name := range []string{"record-queue-time-avg", "record-retry-total", "io-ratio", "select-total", "successful-authentication-total", "flush-time-ns-total"} {
		if got[name] != "NaN" {
			t.Errorf("%s = %q, want NaN (not measured)", name, got[name])
		}
	}
	if strings.Contains(stdout.String(), "bufferpool-wait-time-total") || strings.Contains(stdout.String(), "iotime-total") {
		t.Error("metrics Kafka 4 removed are printed")
	}
}
