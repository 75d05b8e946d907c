package study

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/serde"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// A consume workload whose records carry kbench's send-time header
// (send_time_header) reports its end-to-end latency in result.json beside
// its counts: it measured it and dropped it, so an OpenMessaging Benchmark
// workload's consumers had no end-to-end latency.
func TestWorkloadResultConsumerEndToEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		endToEnd              bool // the workload read its own records
		fromHeader, fromStamp int64
		wantE2E, wantConsumer bool
		wantSource            string
	}{
		{"consume, stamped records", false, 3, 0, true, true, "header"},
		{"consume, some stamped", false, 2, 1, true, true, "mixed"},
		{"consume, timestamps only", false, 0, 3, false, true, ""},
		{"end-to-end", true, 3, 0, true, false, "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := measure.NewHistogram()
			for _, us := range []int64{800, 1200, 2500} {
				h.Record(us)
			}
			now := time.Now()
			cons := &consume.ConsumerResult{Start: now, End: now.Add(time.Second), Records: 3, Latency: h,
				FromHeader: tt.fromHeader, FromTimestamp: tt.fromStamp, Clients: 1}
			out := &runner.Outcome{Start: now, End: now.Add(time.Second)}
			w := runner.WorkloadOutcome{Name: "w", Kind: "consume", Measured: workload.Measured{Read: cons}}
			if tt.endToEnd {
				w = runner.WorkloadOutcome{Name: "w", Kind: "end-to-end", Measured: workload.Measured{EndToEnd: cons}}
			}
			rw, err := workloadResult(out, w, encoding{})
			if err != nil {
				t.Fatal(err)
			}
			if (rw.EndToEnd != nil) != tt.wantE2E || (rw.Consumer != nil) != tt.wantConsumer {
				t.Fatalf("end-to-end %v, consumer %v; want %v, %v", rw.EndToEnd != nil, rw.Consumer != nil, tt.wantE2E, tt.wantConsumer)
			}
			if rw.EndToEnd != nil && (rw.EndToEnd.Count != 3 || rw.EndToEnd.Source != tt.wantSource || rw.EndToEnd.Max != 2500) {
				t.Errorf("end-to-end count %d source %q max %d; want 3, %q, 2500", rw.EndToEnd.Count, rw.EndToEnd.Source, rw.EndToEnd.Max, tt.wantSource)
			}
		})
	}
}

// TestWorkloadResultProducerTopic: a produce workload names its topic in
// result.json also when the scenario has several; it named it only when
// there was one, so an OpenMessaging Benchmark workload of ten topics could
// not tell which topic each producer wrote.
func TestWorkloadResultProducerTopic(t *testing.T) {
	t.Parallel()
	now := time.Now()
	out := &runner.Outcome{Start: now, End: now.Add(time.Second), Topics: []kadmin.TopicInfo{{Name: "a", Partitions: 1}, {Name: "b", Partitions: 4}}}
	prod := &produce.ProducerResult{Start: now, End: now.Add(time.Second), Clients: 1, Latency: measure.NewHistogram(), Acked: 1}
	prod.Latency.Record(1000) // a record sent: a repeat without one fails
	rw, err := workloadResult(out, runner.WorkloadOutcome{Name: "p", Kind: "produce", Measured: workload.Measured{Publish: prod}, ProduceTopic: "b"}, encoding{})
	if err != nil {
		t.Fatal(err)
	}
	if rw.Topic == nil || rw.Topic.Name != "b" || rw.Topic.Partitions != 4 {
		t.Errorf("topic %+v, want b of 4 partitions", rw.Topic)
	}
}

// TestWorkloadResultNoRecordSent guards issue 34 item 14: a producing
// workload that sent nothing fails its repeat ("no record sent"); it was
// "ok" with latencies of 0.0 ms.
func TestWorkloadResultNoRecordSent(t *testing.T) {
	t.Parallel()
	now := time.Now()
	out := &runner.Outcome{Start: now, End: now.Add(time.Second)}
	prod := &produce.ProducerResult{Start: now, End: now.Add(time.Second), Clients: 1, Latency: measure.NewHistogram()}
	if _, err := workloadResult(out, runner.WorkloadOutcome{Name: "p", Kind: "produce", Measured: workload.Measured{Publish: prod}}, encoding{}); err == nil || err.Error() != "no record sent" {
		t.Fatalf("error %v, want no record sent", err)
	}
	prod.Acked = 1
	prod.Latency.Record(1000)
	if _, err := workloadResult(out, runner.WorkloadOutcome{Name: "p", Kind: "produce", Measured: workload.Measured{Publish: prod}}, encoding{}); err != nil {
		t.Fatalf("a record sent: error %v", err)
	}
}

// badJSON is a value source whose every value is not JSON.
type badJSON struct{}

func (badJSON) Value(int64) []byte          { return []byte("{not json") }
func (badJSON) MaxSize() int                { return 9 }
func (badJSON) Clone(uint64) payload.Source { return badJSON{} }

// Values that did not encode fail the workload, with their format, and
// are counted once: the next repeat counts its own.
func TestEncodeFailuresFailTheWorkload(t *testing.T) {
	sch, err := serde.Parse(serde.Avro, `{"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	src := serde.NewSource(badJSON{}, sch, 7)
	for i := range int64(3) {
		src.Value(i)
	}
	spec := workload.Produce{Spec: produce.ProducerSpec{Values: serde.Rendered(src)}}
	enc := encodingOf(spec)
	if enc.format != "avro" || enc.failures != 3 || enc.err == nil {
		t.Fatalf("encoding %+v: want 3 avro failures with an error", enc)
	}
	prod := &produce.ProducerResult{Acked: 10, Bytes: 1000, Clients: 1, Latency: measure.NewHistogram()}
	out := &runner.Outcome{}
	_, err = workloadResult(out, runner.WorkloadOutcome{Name: "p", Kind: "produce", Measured: workload.Measured{Publish: prod}}, enc)
	if err == nil || !strings.Contains(err.Error(), "3 values did not encode as avro (sent empty)") {
		t.Errorf("workload error %v, want the 3 values that did not encode", err)
	}
	if again := encodingOf(spec); again.failures != 0 {
		t.Errorf("counted again: %+v", again)
	}
}
