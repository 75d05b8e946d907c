package study

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// BenchmarkProducerCPUPerRecord compares kbench's CPU per record for the
// same workload built from a plan (kbench run) and built directly as
// producer-perf-test builds it: a plan must cost no more. An in-process
// fake broker keeps the network out; both share it equally.
//
//	go test -run x -bench ProducerCPUPerRecord -benchtime 200000x ./internal/study/
func BenchmarkProducerCPUPerRecord(b *testing.B) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	bootstrap := c.ListenAddrs()[0]
	run := func(b *testing.B, sc runner.Scenario) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		b.ResetTimer()
		cpu0 := measure.ProcessCPU()
		out, err := runner.Run(ctx, sc)
		cpu := measure.ProcessCPU() - cpu0
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if got := out.Workloads[0].Publish.Acked; got != int64(b.N) {
			b.Fatalf("acked %d of %d", got, b.N)
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/record")
	}
	b.Run("plan", func(b *testing.B) {
		text := fmt.Sprintf(`name: bench
cluster: {bootstrap: %q}
workloads:
  - {name: p, type: produce, topic: bench, message: {size: 100}, records: %d, properties: {acks: 1}}
`, bootstrap, b.N)
		p, err := plan.Parse("bench.yaml", []byte(text), nil, PlanTypes()...)
		if err != nil {
			b.Fatal(err)
		}
		scs, _ := p.Scenarios()
		sc, err := scenarioOf(p, &scs[0], bootstrap, &build{})
		if err != nil {
			b.Fatal(err)
		}
		run(b, sc)
	})
	b.Run("drop-in", func(b *testing.B) {
		pc, _, err := kafkaconf.ParseProducer([]kafkaconf.Prop{{Key: "bootstrap.servers", Value: bootstrap}, {Key: "acks", Value: "1"}})
		if err != nil {
			b.Fatal(err)
		}
		opts, err := pc.Opts(100)
		if err != nil {
			b.Fatal(err)
		}
		values, err := payload.Random(100, 1)
		if err != nil {
			b.Fatal(err)
		}
		spec := produce.ProducerSpec{Topic: "bench", Records: int64(b.N), Values: values,
			ClientOpts: func(int) []kgo.Opt { return append(opts, kgo.ClientID("producer-1")) }}
		run(b, runner.Scenario{Name: "producer-perf-test", Workloads: []runner.Workload{{Name: "producers", Spec: workload.Produce{Spec: spec}}}})
	})
}
