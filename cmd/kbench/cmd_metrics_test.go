package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
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

// scrape reads a Prometheus text page into "name{labels}" → value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 4<<20))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "kbench_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestRunPlanMetricsEndpoint: during a run the endpoint answers with the
// kbench_ metrics, and its final counters equal result.json's; with
// output to a pipe the log has no escape codes.
func TestRunPlanMetricsEndpoint(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	topic := uniqueTopic(t, "metrics")
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(`name: metrics
cluster: {bootstrap: `+bootstrap+`}
topics: [{name: `+topic+`, partitions: 2}]
workloads:
  - {name: writers, type: produce, topic: `+topic+`, message: {size: 200}, rate: 3k/s, duration: 3s}
  - {name: readers, type: consume, topic: `+topic+`, timeout: 3s}
repeat: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr syncBuffer
	st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- runKbench(t, st, "run", planFile, "--out", out, "--metrics-addr", "127.0.0.1:0", "--metrics-hold", "5s")
	}()
	addrRE := regexp.MustCompile(`Prometheus metrics at (http://\S+/metrics)`)
	var url string
	if !waitFor(t, 30*time.Second, func() bool {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != ""
	}) {
		t.Fatalf("no metrics address printed:\n%s", stderr.String())
	}
	// During the run: records counted as they are acknowledged.
	if !waitFor(t, 60*time.Second, func() bool {
		for k, v := range scrape(t, url) {
			if strings.HasPrefix(k, "kbench_records_sent_total{") && v > 0 {
				return !strings.Contains(stderr.String(), "serving the final metrics") // still running
			}
		}
		return false
	}) {
		t.Fatalf("no records counted during the run:\n%s", stderr.String())
	}
	if !waitFor(t, 2*time.Minute, func() bool { return strings.Contains(stderr.String(), "serving the final metrics") }) {
		t.Fatalf("the run did not end:\n%s", stderr.String())
	}
	final := scrape(t, url)
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sent, sentBytes, failed, consumed, consumedBytes int64
	for _, sc := range doc.Plan.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if p := w.Producer; p != nil {
					sent, sentBytes, failed = sent+p.Records, sentBytes+p.Bytes, failed+p.Failed
				}
				if c := w.Consumer; c != nil {
					consumed, consumedBytes = consumed+c.Records, consumedBytes+c.Bytes
				}
			}
		}
	}
	name := doc.Plan.Scenarios[0].Name
	for _, c := range []struct {
		metric string
		want   int64
	}{
		{`kbench_records_sent_total{scenario="` + name + `",workload="writers"}`, sent},
		{`kbench_bytes_sent_total{scenario="` + name + `",workload="writers"}`, sentBytes},
		{`kbench_records_failed_total{scenario="` + name + `",workload="writers"}`, failed},
		{`kbench_records_consumed_total{scenario="` + name + `",workload="readers"}`, consumed},
		{`kbench_bytes_consumed_total{scenario="` + name + `",workload="readers"}`, consumedBytes},
		{`kbench_publish_latency_seconds_count{scenario="` + name + `",workload="writers"}`, sent},
	} {
		got, ok := final[c.metric]
		if !ok || int64(got) != c.want {
			t.Errorf("%s = %v (present %v), result.json says %d", c.metric, got, ok, c.want)
		}
	}
	if sent == 0 || consumed == 0 {
		t.Fatalf("nothing measured: sent %d, consumed %d", sent, consumed)
	}
	if final[`kbench_repeat{scenario="`+name+`"}`] != 2 {
		t.Errorf("kbench_repeat = %v, want 2", final[`kbench_repeat{scenario="`+name+`"}`])
	}
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d\n%s", c, stderr.String())
	}
	if strings.ContainsRune(stderr.String(), '\x1b') || strings.ContainsRune(stdout.String(), '\x1b') {
		t.Errorf("output to a pipe holds escape codes:\n%q", stderr.String())
	}
}
