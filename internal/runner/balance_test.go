package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestRunBalancedRate: OMB's balanced-rate search on a real broker. With a
// consumer reading what the producer writes, nothing backs up at 500
// records/s and the rate doubles at each control period; with the consumer
// reading another topic, the receive backlog brings the rate down to its
// floor. Both depend on the producer and the consumer reporting to the
// Balance.
func TestRunBalancedRate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	for _, tc := range []struct {
		name      string
		sameTopic bool
	}{{"balanced", true}, {"nothing read", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			topic, other := testTopic(t), testTopic(t)
			popts, copts := producerOpts(t, bootstrap), consumerOpts(t, bootstrap)
			read := topic
			if !tc.sameTopic {
				read = other
			}
			b := load.NewBalance(500, 1)
			duration := 7 * time.Second // two control periods
			if !tc.sameTopic {
				duration = 10 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := Run(ctx, Scenario{
				Name:  "balanced",
				Admin: popts,
				Topics: []Topic{{TopicSpec: kadmin.TopicSpec{Name: topic, Partitions: 2}, Existing: kadmin.Recreate},
					{TopicSpec: kadmin.TopicSpec{Name: other, Partitions: 1}, Existing: kadmin.Recreate}},
				Workloads: []Workload{
					{Name: "producer", Spec: workload.Produce{Spec: produce.ProducerSpec{Topic: topic, Balance: b, Duration: duration,
						Values: values(t), ClientOpts: func(int) []kgo.Opt { return popts }, Interval: time.Second}}},
					{Name: "consumer", Spec: workload.Consume{Spec: consume.ConsumerSpec{Topics: []string{read}, Balance: b,
						IdleTimeout: 3 * time.Second, Latency: true, ClientOpts: func(int) []kgo.Opt { return copts }}}},
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			rates := out.Workloads[0].Publish.Rates
			if len(rates) < 2 || rates[0].Rate != 500 {
				t.Fatalf("rates %+v: want the start and at least one control period", rates)
			}
			second := rates[1].Rate
			// With nothing read, the floor comes at the first control
			// period whose receive backlog is over 1000 records: the
			// first (1500 due at 500/s) when the producer keeps up, a
			// later one when a loaded machine acknowledged fewer than 1000
			// in its first 3 s (then the first control doubled the rate).
			// Only a receive backlog with nothing received sets 1, so
			// reaching it still shows the producer and the consumer
			// reporting to the Balance; the 10 s run has three periods.
			floored := slices.ContainsFunc(rates[1:], func(r load.RatePoint) bool { return r.Rate == 1 })
			switch {
			case tc.sameTopic && second != 1000:
				t.Errorf("rates %+v: with nothing backed up the rate doubles, want 1000 at the first control", rates)
			case !tc.sameTopic && !floored:
				t.Errorf("rates %+v: with nothing read the receive backlog sets the floor, want 1", rates)
			}
			if !out.Workloads[0].Publish.LatencyFromIntended {
				t.Error("latency not from intended send times")
			}
		})
	}
}
