package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestProducerPerfDeadBrokerBounded: regression: with its only broker
// killed, a timed run went on for the whole 120 s delivery timeout and
// more (a transactional one for minutes, its commit unbounded), printing
// only "0 records sent" lines. Now every flush and commit is bounded by
// the delivery timeout plus 5 s, and stderr says what is happening.
func TestProducerPerfDeadBrokerBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		extra []string
	}{
		{"timed", nil},
		{"transactional", []string{"--transactional-id", "tx-dead", "--transaction-duration-ms", "500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newFakeBroker(t)
			st, _, _ := clusterTestState(t)
			stdout, stderr := &syncBuffer{}, &syncBuffer{}
			st.stdout, st.stderr = stdout, stderr
			go func() {
				if !waitFor(t, time.Minute, func() bool { return strings.Count(stdout.String(), "records sent") >= 2 }) {
					t.Errorf("no progress lines before the kill:\n%s\n%s", stdout, stderr)
				}
				c.Kill()
			}()
			args := append([]string{"producer-perf-test", "--topic", "dead-" + tt.name, "--duration", "6s", "--record-size", "100",
				"--throughput", "5000", "--reporting-interval", "1000",
				"--producer-props", "bootstrap.servers=" + c.Bootstrap(), "delivery.timeout.ms=4000", "request.timeout.ms=2000", "linger.ms=5"}, tt.extra...)
			start := time.Now()
			code := runKbench(t, st, args...)
			// The bound: 6 s of sending, the 4 s delivery timeout, the 5 s
			// margin (15 s); the regression took the 120 s delivery timeout.
			hangGuard(t, time.Since(start), 35*time.Second, "run with its broker dead; bound 15 s\nstderr:\n%s", stderr)
			if code != exitFailure {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailure, stdout, stderr)
			}
			if !strings.Contains(stderr.String(), "kbench: no acknowledgement for ") {
				t.Errorf("stderr does not say the sends stalled:\n%s", stderr)
			}
		})
	}
}

// TestProducerPerfInterruptExit130: Ctrl-C ends a run with exit code 130,
// the summary line printed and the result written with status
// "interrupted", through the real binary and a real signal.
func TestProducerPerfInterruptExit130(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	bin := kbenchBin(t)
	out := filepath.Join(dir, "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "producer-perf-test", "--topic", uniqueTopic(t, "sigint"), "--num-records", "100000000",
		"--record-size", "100", "--throughput", "20000", "--reporting-interval", "1000", "--bootstrap-server", bootstrap, "--json", out)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, time.Minute, func() bool { return strings.Count(stdout.String(), "records sent") >= 2 }) {
		t.Fatalf("no progress lines:\n%s\n%s", stdout, stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\nstdout:\n%s\nstderr:\n%s", err, exitInterrupted, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "99.9th.") {
		t.Errorf("no summary line after Ctrl-C:\n%s", stdout)
	}
	doc, err := result.Read(out)
	if err != nil {
		t.Fatalf("no result written after Ctrl-C: %v", err)
	}
	if doc.Status != result.StatusInterrupted || doc.Producer == nil || doc.Producer.Records == 0 {
		t.Fatalf("result: status %q, producer %+v; want interrupted with the records measured", doc.Status, doc.Producer)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}

// TestConsumerPerfPausedBrokerBounded: regression: with its broker paused
// (SIGSTOP) mid-run, consumer-perf-test ignored --timeout and exited after
// 183 s: leaving the group waited on the paused coordinator. The run now
// ends within --timeout plus 7 s (a last lag sample, at most 2 s, and the
// 5 s close bound), and writes what it read.
func TestConsumerPerfPausedBrokerBounded(t *testing.T) {
	t.Parallel()
	c := newFakeBroker(t)
	topic := uniqueTopic(t, "paused")
	group := topic + "-group"
	st, _, _ := clusterTestState(t)
	if code := runKbench(t, st, "producer-perf-test", "--topic", topic, "--num-records", "20000", "--record-size", "100",
		"--throughput", "-1", "--bootstrap-server", c.Bootstrap()); code != exitOK {
		t.Fatalf("produce: exit %d", code)
	}
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	st.stdout, st.stderr = stdout, stderr
	paused := make(chan time.Time, 1)
	go func() {
		defer close(paused)
		// Pause once the group has its assignment and records flow: the
		// first interval line says records were read. It starts with its
		// date (--messages's deprecation warning and the header come
		// first: counting lines paused the broker before any read).
		progress := regexp.MustCompile(`(?m)^\d{4}-\d{2}-\d{2} `)
		if !waitFor(t, time.Minute, func() bool { return progress.MatchString(stdout.String()) }) {
			t.Errorf("no interval line before the pause:\n%s\n%s", stdout, stderr)
			return
		}
		c.Pause()
		paused <- time.Now()
	}()
	out := filepath.Join(t.TempDir(), "r.json")
	code := runKbench(t, st, "consumer-perf-test", "--topic", topic, "--messages", "100000000", "--group", group,
		"--timeout", "3000", "--bootstrap-server", c.Bootstrap(), "--command-property", "request.timeout.ms=2000", "--json", out,
		"--show-detailed-stats", "--reporting-interval", "200", "--strict")
	ended := time.Now()
	at, ok := <-paused
	if !ok {
		t.Fatalf("the broker was not paused\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	// The bound: --timeout 3 s, a last lag sample (2 s), the 5 s close
	// bound (10 s); the regression took 183 s.
	hangGuard(t, ended.Sub(at), 30*time.Second, "run with its broker paused; bound: --timeout 3 s, 7 s to end\nstderr:\n%s", stderr)
	if code == exitOK {
		t.Fatalf("exit 0 after consuming too few records\nstdout:\n%s", stdout)
	}
	if doc := readDoc(t, out); doc.Status != result.StatusFailed || doc.Consumer == nil || doc.Consumer.Records == 0 {
		t.Errorf("result: status %q, consumer %+v; want failed, with the records read", doc.Status, doc.Consumer)
	}
}
