package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// Tests with the broker paused, as an overloaded or frozen broker is: it
// accepts connections and never answers (a fake broker holding every
// request: the bounds are kbench's). Each bound checked is the one
// docs/notes.md states ("Bounds"), with room for a machine twice as slow.

// pausedPlan is a plan of two scenarios producing at 2,000 records/s for
// a minute with a consumer beside, against bootstrap. (A producer whose
// duration is over drains its records for up to delivery.timeout.ms
// whatever happens meanwhile: the producer engine's bound, not tested
// here.)
func pausedPlan(t *testing.T, bootstrap, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	text := fmt.Sprintf(`name: %[2]s
cluster: {bootstrap: "%[1]s"}
topics:
  - {name: "%[2]s-${size}", partitions: 1, replication: 1, existing: recreate}
workloads:
  - {name: producer, type: produce, topic: "%[2]s-${size}", message: {size: "${size}"}, rate: 2000/s, duration: 60s}
  - {name: reader, type: consume, topic: "%[2]s-${size}", group: %[2]s, duration: 62s}
matrix:
  size: [10, 100]
`, bootstrap, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readDoc reads a result document the run had to write.
func readDoc(t *testing.T, path string) *result.Document {
	t.Helper()
	doc, err := result.Read(path)
	if err != nil {
		t.Fatalf("no result written: %v", err)
	}
	return doc
}

// TestPausedBrokerBeforeStart: regression: with the broker paused before
// the start, consumer-perf-test took 45 s and wrote no JSON,
// end-to-end-latency wrote none either, and kbench run took 60 s for two
// scenarios (a 30 s version check, then 15 s per scenario, no abort). One
// check (15 s) now fails each, the JSON says why, and a plan skips the
// rest with the reason.
func TestPausedBrokerBeforeStart(t *testing.T) {
	t.Parallel()
	c := newFakeBroker(t)
	c.Pause()
	dir := t.TempDir()
	plan := pausedPlan(t, c.Bootstrap(), "before")
	tests := []struct {
		name string
		args []string
		json string
	}{
		{"consumer-perf-test", []string{"consumer-perf-test", "--topic", "t", "--num-records", "10", "--bootstrap-server", c.Bootstrap(),
			"--json", filepath.Join(dir, "consumer.json")}, filepath.Join(dir, "consumer.json")},
		{"end-to-end-latency", []string{"end-to-end-latency", "--bootstrap-server", c.Bootstrap(), "--topic", "t", "--num-records", "10",
			"--producer-acks", "1", "--record-size", "10", "--json", filepath.Join(dir, "e2e.json")}, filepath.Join(dir, "e2e.json")},
		{"run", []string{"run", plan, "--out", filepath.Join(dir, "plan")}, filepath.Join(dir, "plan", "result.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, stderr := clusterTestState(t)
			start := time.Now()
			code := runKbench(t, st, tt.args...)
			// The bound: the 15 s check (the same for any number of
			// scenarios); the regression took 45 to 60 s.
			hangGuard(t, time.Since(start), 30*time.Second, "with the broker paused; bound: one 15 s check\nstderr:\n%s", stderr)
			if code != exitFailure {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitFailure, stderr)
			}
			doc := readDoc(t, tt.json)
			if doc.Status != result.StatusFailed || !strings.Contains(doc.Error, "cannot reach the Kafka cluster") {
				t.Errorf("result: status %q, error %q; want failed, saying the cluster did not answer", doc.Status, doc.Error)
			}
			if doc.Plan == nil {
				return
			}
			for _, sc := range doc.Plan.Scenarios {
				for _, r := range sc.Repeats {
					if r.Status != result.StatusSkipped || !strings.Contains(r.Error, "cannot reach the Kafka cluster") {
						t.Errorf("scenario %s, repeat %d: %s (%s); want skipped with the reason", sc.Name, r.Index, r.Status, r.Error)
					}
				}
			}
		})
	}
}

// TestPausedBrokerMidRun: regression: with the broker paused mid-run,
// end-to-end-latency said nothing for 150 s (its send waited out the
// delivery timeout, then its poll 60 s more), and a plan went on for
// 172 s and more (the producer's drain, then each scenario's own check)
// while the live view kept printing the last p99. Now end-to-end-latency
// says which record waits and ends after one check, and a plan's watchdog
// ends the repeat after one check and skips the rest.
func TestPausedBrokerMidRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	t.Run("end-to-end-latency", func(t *testing.T) {
		c := newFakeBroker(t)
		st, _, _ := clusterTestState(t)
		stdout, stderr := &syncBuffer{}, &syncBuffer{}
		st.stdout, st.stderr = stdout, stderr
		out := filepath.Join(dir, "e2e.json")
		paused := make(chan time.Time, 1)
		go func() {
			if !waitFor(t, time.Minute, func() bool { return strings.Contains(stdout.String(), "0\t") }) {
				t.Errorf("no first record:\n%s\n%s", stdout, stderr)
			}
			c.Pause()
			paused <- time.Now()
		}()
		code := runKbench(t, st, "end-to-end-latency", "--bootstrap-server", c.Bootstrap(), "--topic", "mid-e2e", "--num-records", "100000000",
			"--producer-acks", "1", "--record-size", "10", "--json", out)
		// The bound: 5 s without the record, the 15 s check, 2 s of
		// closing (22 s); the regression took 150 s.
		hangGuard(t, time.Since(<-paused), 45*time.Second, "from the pause to the end; bound about 22 s\nstderr:\n%s", stderr)
		if code != exitFailure || !strings.Contains(stderr.String(), " after 5s (each record is given ") {
			t.Errorf("exit %d (want %d); stderr must say which record waits:\n%s", code, exitFailure, stderr)
		}
		if doc := readDoc(t, out); doc.Status != result.StatusFailed || !strings.Contains(doc.Error, "cannot reach the Kafka cluster") || doc.EndToEnd.Count == 0 {
			t.Errorf("result: status %q, error %q, %d latencies; want failed, the reason, and what was measured", doc.Status, doc.Error, doc.EndToEnd.Count)
		}
	})

	t.Run("run", func(t *testing.T) {
		c := newFakeBroker(t)
		st, _, _ := clusterTestState(t)
		stderr := &syncBuffer{}
		st.stderr = stderr
		paused := make(chan time.Time, 1)
		go func() {
			// Pause once the first repeat's workloads report (the live
			// view's first status lines, after 10 s).
			if !waitFor(t, 2*time.Minute, func() bool { return strings.Contains(stderr.String(), ": producer: ") }) {
				t.Errorf("no status line:\n%s", stderr)
			}
			c.Pause()
			paused <- time.Now()
		}()
		code := runKbench(t, st, "run", pausedPlan(t, c.Bootstrap(), "mid"), "--out", filepath.Join(dir, "plan"))
		// The bound: 5 s without an acknowledgement, the 15 s check, the
		// repeat's end after Ctrl-C (5 s); the regression took 172 s.
		hangGuard(t, time.Since(<-paused), 50*time.Second, "from the pause to the end; bound about 21 s\nstderr:\n%s", stderr)
		if code != exitFailure {
			t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitFailure, stderr)
		}
		if !strings.Contains(stderr.String(), "producer: no acknowledgements for ") {
			t.Errorf("the live view does not say the producer stalled:\n%s", stderr)
		}
		doc := readDoc(t, filepath.Join(dir, "plan", "result.json"))
		first, second := doc.Plan.Scenarios[0].Repeats[0], doc.Plan.Scenarios[1].Repeats[0]
		if first.Status != result.StatusFailed || !strings.Contains(first.Error, "cannot reach the Kafka cluster") ||
			len(first.Workloads) == 0 || first.Workloads[0].Producer == nil || first.Workloads[0].Producer.Records == 0 {
			t.Errorf("first repeat: %s (%s); want failed with the reason and what it measured", first.Status, first.Error)
		}
		if second.Status != result.StatusSkipped {
			t.Errorf("second scenario: %s (%s); want skipped", second.Status, second.Error)
		}
	})
}

// TestPausedBrokerInterrupt: regression: Ctrl-C with the broker paused
// took 22–28 s to end a plan (the brokers' versions, asked with a context
// franz-go ignores while it dials, took 30 s), as long to end
// consumer-perf-test, and a minute to end end-to-end-latency. Every command
// now ends within 5 s of it, with its JSON (interrupted) written, whether
// the broker paused before the start or mid-run.
func TestPausedBrokerInterrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// backlog gives a consumer records to read before the pause.
	backlog := func(t *testing.T, bootstrap string) {
		st, _, stderr := clusterTestState(t)
		if code := runKbench(t, st, "producer-perf-test", "--topic", "backlog", "--num-records", "1000000", "--record-size", "10",
			"--throughput", "-1", "--bootstrap-server", bootstrap); code != exitOK {
			t.Fatalf("produce: exit %d\n%s", code, stderr)
		}
	}
	consumerArgs := func(group, json string) func(string) []string {
		return func(bootstrap string) []string {
			return []string{"consumer-perf-test", "--topic", "backlog", "--num-records", "100000000", "--timeout", "60000",
				"--group", group, "--show-detailed-stats", "--reporting-interval", "100", "--bootstrap-server", bootstrap, "--json", json}
		}
	}
	planArgs := func(name string) func(string) []string {
		return func(bootstrap string) []string {
			return []string{"run", pausedPlan(t, bootstrap, name), "--out", filepath.Join(dir, name)}
		}
	}
	always := func(string, string) bool { return true }
	tests := []struct {
		name        string
		pausedFirst bool // the broker pauses before the start, else once ready
		backlog     bool
		args        func(bootstrap string) []string
		json        string
		ready       func(stdout, stderr string) bool // the run is under way: pause now
		stall       func(stdout, stderr string) bool // it noticed the pause: interrupt now
	}{
		{"run, paused before the start", true, false, planArgs("sigint-before"),
			filepath.Join(dir, "sigint-before", "result.json"), func(_, e string) bool { return strings.Contains(e, "results in") }, always},
		{"consumer-perf-test, paused before the start", true, true, consumerArgs("sigint-before", filepath.Join(dir, "consumer-before.json")),
			filepath.Join(dir, "consumer-before.json"), always, always},
		{"run", false, false, planArgs("sigint"), filepath.Join(dir, "sigint", "result.json"),
			func(_, e string) bool { return strings.Contains(e, ": producer: ") },
			func(_, e string) bool { return strings.Contains(e, ": no acknowledgement for ") }},
		{"consumer-perf-test", false, true, consumerArgs("sigint-consumer", filepath.Join(dir, "consumer.json")), filepath.Join(dir, "consumer.json"),
			func(o, _ string) bool { return strings.Count(o, "\n") >= 2 }, always}, // header and a first interval: 1M records must not all be read by then
		{"end-to-end-latency", false, false, func(bootstrap string) []string {
			return []string{"end-to-end-latency", "--bootstrap-server", bootstrap, "--topic", "sigint-e2e", "--num-records", "100000000",
				"--producer-acks", "1", "--record-size", "10", "--json", filepath.Join(dir, "e2e.json")}
		}, filepath.Join(dir, "e2e.json"),
			func(o, _ string) bool { return strings.Contains(o, "0\t") },
			func(_, e string) bool { return strings.Contains(e, " after 5s (each record is given ") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newFakeBroker(t)
			if tt.backlog {
				backlog(t, c.Bootstrap())
			}
			st, _, _ := clusterTestState(t)
			stdout, stderr := &syncBuffer{}, &syncBuffer{}
			st.stdout, st.stderr = stdout, stderr
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if tt.pausedFirst {
				c.Pause()
			}
			interrupted := make(chan time.Time, 1)
			go func() {
				defer cancel()
				if !waitFor(t, 2*time.Minute, func() bool { return tt.ready(stdout.String(), stderr.String()) }) {
					t.Errorf("not under way:\n%s\n%s", stdout, stderr)
				}
				if tt.pausedFirst {
					// Ctrl-C 3 s into the wait on the paused cluster: part of
					// the scenario, not a synchronisation.
					<-time.After(3 * time.Second)
				} else {
					c.Pause()
				}
				if !waitFor(t, time.Minute, func() bool { return tt.stall(stdout.String(), stderr.String()) }) {
					t.Errorf("the pause went unnoticed:\n%s", stderr)
				}
				interrupted <- time.Now()
			}()
			code := run(ctx, append([]string{"kbench"}, tt.args(c.Bootstrap())...), st)
			// The regression took 22 s to a minute.
			hangGuard(t, time.Since(<-interrupted), 10*time.Second, "from Ctrl-C to the end; bound 5 s\nstderr:\n%s", stderr)
			if code != exitInterrupted {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, stderr)
			}
			if doc := readDoc(t, tt.json); doc.Status != result.StatusInterrupted {
				t.Errorf("result: status %q (%s), want interrupted", doc.Status, doc.Error)
			}
		})
	}
}
