package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestProducerPerfMetricsEndpoint: --metrics-addr serves on the drop-in
// the metric names a plan serves, and its final counters equal the
// --json result's.
func TestProducerPerfMetricsEndpoint(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	jsonPath := filepath.Join(t.TempDir(), "result.json")
	var stdout, stderr syncBuffer
	st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- runKbench(t, st, "producer-perf-test", "--topic", uniqueTopic(t, "dropin-metrics"), "--num-records", "20000",
			"--record-size", "100", "--throughput", "5000", "--bootstrap-server", bootstrap, "--json", jsonPath,
			"--metrics-addr", "127.0.0.1:0", "--metrics-hold", "5s")
	}()
	addrRE := regexp.MustCompile(`Prometheus metrics at (http://\S+/metrics)`)
	var url string
	if !waitFor(t, 60*time.Second, func() bool { // a hang guard, not a measurement
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != "" && strings.Contains(stderr.String(), "serving the final metrics")
	}) {
		t.Fatalf("no metrics address or no end of the run:\n%s", stderr.String())
	}
	final := scrape(t, url)
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d\n%s", c, stderr.String())
	}
	doc, err := result.Read(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	const labels = `{scenario="kafka-producer-perf-test",workload="producers"}`
	for metric, want := range map[string]int64{
		"kbench_records_sent_total" + labels:            doc.Producer.Records,
		"kbench_bytes_sent_total" + labels:              doc.Producer.Bytes,
		"kbench_records_failed_total" + labels:          doc.Producer.Failed,
		"kbench_publish_latency_seconds_count" + labels: doc.Producer.Records,
	} {
		if got, ok := final[metric]; !ok || int64(got) != want {
			t.Errorf("%s = %v (present %v), --json says %d", metric, got, ok, want)
		}
	}
	if doc.Producer.Records != 20000 {
		t.Errorf("%d records acknowledged, want 20000", doc.Producer.Records)
	}
}
