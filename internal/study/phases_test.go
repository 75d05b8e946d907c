package study

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestRunPhasesInSequence: regression: only consume workloads took
// start_after, and only as a duration, so a study that produces, then
// consumes what was written, then measures end-to-end latency (the
// partition study) could not run its phases one after another. Each
// workload here starts once the one it names has ended: the readers read
// every record the writers wrote (from the start of the topic), and the
// end-to-end probe starts after them and measures its own records only.
func TestRunPhasesInSequence(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	text := fmt.Sprintf(`name: phases
cluster: {bootstrap: "%s"}
topics: [{name: %s, partitions: 2, replication: 1}]
workloads:
  - {name: writers, type: produce, topic: %[2]s, records: 3000, properties: {acks: 1}, message: {size: 100}}
  - {name: readers, type: consume, topic: %[2]s, group: readers-%[2]s, records: 3000, start_after: writers}
  - {name: latency, type: end-to-end, topic: %[2]s, records: 500, rate: 1000/s, message: {size: 100}, start_after: readers}
`, bootstrap, topic)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	sc, err := scenarioOf(p, &scs[0], bootstrap, &build{seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var endedMu sync.Mutex
	var ended []string
	sc.OnEnded = func(name string) { // the live view's "done"
		endedMu.Lock()
		defer endedMu.Unlock()
		ended = append(ended, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := runner.Run(ctx, sc)
	if err != nil {
		for _, w := range out.Workloads {
			t.Logf("%s: producer %+v consumer %+v", w.Name, w.Publish != nil, w.Read)
		}
		t.Fatal(err)
	}
	writers, readers, latency := out.Workloads[0], out.Workloads[1], out.Workloads[2]
	if writers.Publish == nil || readers.Read == nil || latency.Publish == nil || latency.EndToEnd == nil {
		t.Fatalf("a phase did not run: %+v", out.Workloads)
	}
	if readers.Read.Records != writers.Publish.Acked || writers.Publish.Acked != 3000 {
		t.Errorf("readers read %d of the %d records written", readers.Read.Records, writers.Publish.Acked)
	}
	if readers.Read.Start.Before(writers.Publish.End) {
		t.Errorf("readers started at %v, before the writers ended at %v", readers.Read.Start, writers.Publish.End)
	}
	if latency.Publish.Start.Before(readers.Read.End) {
		t.Errorf("the end-to-end phase started at %v, before the readers ended at %v", latency.Publish.Start, readers.Read.End)
	}
	if latency.EndToEnd.Records != 500 {
		t.Errorf("the end-to-end consumer read %d records, want its own 500", latency.EndToEnd.Records)
	}
	endedMu.Lock()
	if got := strings.Join(ended, ","); got != "writers,readers,latency" {
		t.Errorf("workloads ended in the order %q, want each phase's end said as it came", got)
	}
	endedMu.Unlock()
	// A phase after the writers ended is not a catch-up read.
	if rw, _ := workloadResult(out, readers, encoding{}); rw.CatchUp != nil {
		t.Errorf("readers, a phase after the writers, labelled a catch-up read: %+v", rw.CatchUp)
	}
}

// TestCatchingUp: regression: every consume workload that started late was
// labelled a catch-up read, also one that started after the producers had
// finished (a phase in sequence, start_after a producing workload). Only a
// consumer starting with records behind it while a producer of its topic
// still sends is catching up.
func TestCatchingUp(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	producer := runner.WorkloadOutcome{Name: "writers", Kind: "produce", ProduceTopic: "t",
		Measured: workload.Measured{Publish: &produce.ProducerResult{Start: at(0), End: at(10)}}}
	tests := []struct {
		name    string
		start   float64
		backlog int64
		topic   string
		want    bool
	}{
		{"starts while the producer sends", 5, 4000, "t", true},
		{"starts after the producer ended", 11, 20000, "t", false},
		{"nothing behind it", 5, 0, "t", false},
		{"another topic", 5, 4000, "u", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reader := runner.WorkloadOutcome{Name: "readers", Kind: "consume", Late: true,
				Measured: workload.Measured{Read: &consume.ConsumerResult{Start: at(tt.start), End: at(20), Backlog: tt.backlog, Topics: map[string]int{tt.topic: 1}}}}
			out := &runner.Outcome{Start: t0, Workloads: []runner.WorkloadOutcome{producer, reader}}
			if got := catchingUp(out, reader); got != tt.want {
				t.Fatalf("catchingUp = %v, want %v", got, tt.want)
			}
			rw, _ := workloadResult(out, reader, encoding{})
			if (rw.CatchUp != nil) != tt.want {
				t.Fatalf("result's catch_up %+v, want it only for a catch-up read", rw.CatchUp)
			}
		})
	}
}
