package study

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestRunRampingVirtualUsers: regression: k6's ramping virtual users
// (stages: [{duration: 30s, target: 100}]) were refused. A plan ramps
// from 0 to 2 users, holds them, ramps to 8 and holds them, against the
// real broker: on each plateau Little's law holds, records/s × mean
// latency (the users busy on average) is the plateau's users, within 15%.
func TestRunRampingVirtualUsers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	text := fmt.Sprintf(`name: ramp
cluster: {bootstrap: "%s"}
topics: [{name: %s, partitions: 2, replication: 1}]
workloads:
  - name: users
    type: produce
    topic: %[2]s
    properties: {acks: 1, linger.ms: 0}
    message: {size: 100}
    vus: 0
    stages: [{duration: 1s, target: 2}, {duration: 4s, target: 2}, {duration: 1s, target: 8}, {duration: 4s, target: 8}]
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := runner.Run(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	res := out.Workloads[0].Publish
	for _, iv := range res.Intervals {
		t.Logf("%v %v: %d records, L=%.2f", iv.Elapsed-iv.Length, iv.Elapsed, iv.Count, float64(iv.LatSumUs)/1e6/iv.Length.Seconds())
	}
	plateaus := []struct {
		from, to time.Duration
		users    float64
	}{
		{1200 * time.Millisecond, 5 * time.Second, 2},
		{6200 * time.Millisecond, 10 * time.Second, 8},
	}
	for _, pl := range plateaus {
		var busy, span float64 // seconds of latency, seconds of intervals
		var records int64
		for _, iv := range res.Intervals {
			if iv.Elapsed-iv.Length < pl.from || iv.Elapsed > pl.to {
				continue
			}
			busy += float64(iv.LatSumUs) / 1e6
			span += iv.Length.Seconds()
			records += iv.Count
		}
		if span < 1.5 || records == 0 {
			t.Fatalf("plateau of %v users: %.1f s of intervals, %d records (intervals %+v)", pl.users, span, records, res.Intervals)
		}
		// Little's law: L = λ·W = (records/span)·(busy/records) = busy/span.
		if l := busy / span; l < 0.85*pl.users || l > 1.15*pl.users {
			t.Errorf("plateau of %v users: records/s × mean latency = %.2f users (%d records in %.1f s, mean %.2f ms)",
				pl.users, l, records, span, 1000*busy/float64(records))
		}
	}
	if d := res.End.Sub(res.Start); d < 9*time.Second || d > 15*time.Second {
		t.Errorf("the ramp of 10 s ran %v", d)
	}
	// Regression: the result had no per-plateau figures; each plateau now
	// has its users, records/s, p50/p99 and Little's law's check.
	rw, err := workloadResult(out, out.Workloads[0], encoding{})
	if err != nil {
		t.Fatal(err)
	}
	pls := rw.Producer.Plateaus
	if len(pls) != 2 || pls[0].VUs != 2 || pls[1].VUs != 8 || pls[0].FromSeconds != 1 || pls[1].ToSeconds != 10 {
		t.Fatalf("plateaus %+v: want 2 users from 1 s to 5 s, 8 from 6 s to 10 s", pls)
	}
	for _, pl := range pls {
		if pl.Records == 0 || pl.RecordsPerSec <= 0 || pl.P50Ms <= 0 || pl.P99Ms < pl.P50Ms || pl.LittleRatio < 0.85 || pl.LittleRatio > 1.15 {
			t.Errorf("plateau of %d users: %+v; want its figures and Little's law within 15%%", pl.VUs, pl)
		}
	}
}
