package main

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/userr"
)

// TestProducerPerfErrorPrintedOnce runs three producers whose records the
// broker refuses as too large: the error is printed once for the run.
func TestProducerPerfErrorPrintedOnce(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	st, _, stderr := consumerTestState()
	// The broker's message.max.bytes is about 1 MiB; the client's limit is raised past the records.
	code := runKbench(t, st, "producer-perf-test", "--topic", uniqueTopic(t, "too-large"), "--num-records", "6",
		"--record-size", "1500000", "--throughput", "-1", "--producers", "3", "--bootstrap-server", bootstrap,
		"--producer-props", "max.request.size=2000000", "buffer.memory=67108864")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailure, stderr)
	}
	if n := strings.Count(stderr.String(), "kbench: produce failed: MESSAGE_TOO_LARGE"); n != 1 {
		t.Errorf("the error is printed %d times, want once:\n%s", n, stderr)
	}
	if strings.Contains(stderr.String(), "MESSAGE_TOO_LARGE: MESSAGE_TOO_LARGE") {
		t.Errorf("the kind is printed twice:\n%s", stderr)
	}
}

func TestGCPercent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		gogc    string
		want    int
		wantSet bool
	}{
		{"", benchGCPercent, true},
		{"100", 0, false},
		{"off", 0, false},
	}
	for _, tt := range tests {
		got, set := gcPercent(func(k string) string {
			if k == "GOGC" {
				return tt.gogc
			}
			return ""
		})
		if got != tt.want || set != tt.wantSet {
			t.Errorf("GOGC=%q: gcPercent = %d, %v; want %d, %v", tt.gogc, got, set, tt.want, tt.wantSet)
		}
	}
}

// TestConsumerPerfLeavesGCAlone: regression: consumer-perf-test changed the
// process-wide GC setting for its run, under any workload running beside
// it. main decides it once per process now. Not parallel: it watches a
// process-wide setting.
func TestConsumerPerfLeavesGCAlone(t *testing.T) {
	bootstrap := testkafka.Fake(t)
	topic := consumerTopic(t, bootstrap, 1, 1000)
	st, _, stderr := consumerTestState()
	st.getenv = func(string) string { return "" } // no $GOGC: the old code set its own
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	gogc := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	before := gogc()
	done := make(chan int)
	go func() {
		done <- runKbench(t, st, "consumer-perf-test", "--topic", topic, "--num-records", "1000", "--bootstrap-server", bootstrap)
	}()
	for {
		select {
		case code := <-done:
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			return
		default:
		}
		if now := gogc(); now != before {
			<-done
			t.Fatalf("GOGC changed from %d to %d during the run", before, now)
		}
		runtime.Gosched()
	}
}

// TestProducerPerfHugeRecordSize: regression: --record-size 2000000000 was
// allocated (2 GB of values) before it was checked against
// max.request.size (sizes past 1 GiB are now refused before that:
// TestDropInInputBounds). Not parallel: it measures the process's allocations.
func TestProducerPerfHugeRecordSize(t *testing.T) {
	st, stdout, stderr := consumerTestState()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := runKbench(t, st, "producer-perf-test", "--topic", "t", "--num-records", "10", "--throughput", "-1",
		"--record-size", "1000000000", "--bootstrap-server", "127.0.0.1:1")
	runtime.ReadMemStats(&after)
	if code != exitUsage || !strings.Contains(stderr.String(), "max.request.size=1048576: The message is 1000000089 bytes when serialized") {
		t.Fatalf("exit %d, stderr %q; want %d and the max.request.size error", code, stderr, exitUsage)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("allocated %d MB before refusing the record size", alloc>>20)
	}
}

// TestProducerPerfPartitionsMismatch: regression: --partitions on an
// existing topic with another count was silently ignored, so a partition
// sweep measured the wrong configuration.
func TestProducerPerfPartitionsMismatch(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := uniqueTopic(t, "mismatch")
	testkafka.Topic(t, bootstrap, topic, 2, 0, 10)
	st, stdout, stderr := consumerTestState()
	code := runKbench(t, st, "producer-perf-test", "--topic", topic, "--partitions", "6", "--num-records", "10",
		"--record-size", "10", "--throughput", "-1", "--bootstrap-server", bootstrap)
	want := fmt.Sprintf("topic %q already has 2 partitions, not the 6 --partitions asks for: delete the topic, use another name, or leave out --partitions", topic)
	if code != exitUsage || !strings.Contains(stderr.String(), want) {
		t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("nothing ran, yet stdout has %q", stdout)
	}
}

// TestCheckOverridden: regression: the perf tools replaced the user's
// auto.offset.reset with their own without a word, a mistyped one included.
func TestCheckOverridden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		props    []kafkaconf.Prop
		wantErr  string
		wantNote string
	}{
		{"not set", nil, "", ""},
		{"same value", []kafkaconf.Prop{{Key: "auto.offset.reset", Value: "earliest", Source: "f:1"}}, "", ""},
		{"replaced", []kafkaconf.Prop{{Key: "auto.offset.reset", Value: "latest", Source: "f:1"}}, "",
			"kbench: note: auto.offset.reset=latest (f:1) is replaced by earliest, as the Apache tool does; how\n"},
		{"mistyped", []kafkaconf.Prop{{Key: "auto.offset.reset", Value: "begin", Source: "f:1"}},
			"f:1: auto.offset.reset=begin: invalid value: did you mean earliest?", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var note bytes.Buffer
			err := checkOverridden(tt.props, "auto.offset.reset", "earliest", "how", &note)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if note.String() != tt.wantNote {
				t.Fatalf("note %q, want %q", note.String(), tt.wantNote)
			}
		})
	}
}

// TestJSONPathCheckedFirst: regression: --json was checked only after the
// run, so a missing folder lost the whole run, and an empty --json wrote nothing
// and exited 0. Both are usage errors before anything starts (no broker
// is contacted: the bootstrap server below does not exist).
func TestJSONPathCheckedFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"producer missing folder", []string{"producer-perf-test", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1",
			"--bootstrap-server", "127.0.0.1:1", "--json", dir + "/no/such/folder/r.json"}, "--json " + dir + "/no/such/folder/r.json: cannot write there"},
		{"producer empty", []string{"producer-perf-test", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1",
			"--bootstrap-server", "127.0.0.1:1", "--json", ""}, "option --json: needs a file name"},
		{"producer folder", []string{"producer-perf-test", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1",
			"--bootstrap-server", "127.0.0.1:1", "--json", dir}, "is a folder; give a file name"},
		{"consumer missing folder", []string{"consumer-perf-test", "--topic", "t", "--messages", "1", "--bootstrap-server", "127.0.0.1:1",
			"--json", dir + "/missing/r.json"}, "cannot write there"},
		{"e2e empty", []string{"end-to-end-latency", "--bootstrap-server", "127.0.0.1:1", "--topic", "t", "--num-records", "1",
			"--producer-acks", "1", "--record-size", "1", "--json", ""}, "option --json: needs a file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, stderr := consumerTestState()
			if code := runKbench(t, st, tt.args...); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestProducerPerfProfile: --profile throughput sets the fastest clients'
// properties under the user's own and says so; an unknown profile is a
// usage error naming the known ones.
func TestProducerPerfProfile(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	st, stdout, stderr := consumerTestState()
	code := runKbench(t, st, "producer-perf-test", "--topic", uniqueTopic(t, "profile"), "--num-records", "20000",
		"--record-size", "100", "--throughput", "-1", "--bootstrap-server", bootstrap, "--profile", "throughput",
		"--command-property", "linger.ms=3", "--print-metrics")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if want := "kbench: profile throughput: batch.size=1048576, buffer.memory=268435456, max.in.flight.requests.per.connection=5 (yours kept: linger.ms)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	if !strings.Contains(stdout.String(), "20000 records sent") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	st, _, stderr = consumerTestState()
	if code := runKbench(t, st, "producer-perf-test", "--topic", "x", "--num-records", "1", "--record-size", "1",
		"--throughput", "-1", "--bootstrap-server", bootstrap, "--profile", "fastest"); code != exitUsage ||
		!strings.Contains(stderr.String(), `--profile "fastest": no such profile; use throughput`) {
		t.Errorf("unknown profile: exit %d\n%s", code, stderr.String())
	}
}
