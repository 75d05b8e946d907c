package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
)

// TestSequenceAcrossClients: regression: the sequence generator was
// documented as counting per producer client, but numbers records across
// the workload's clients. It numbers every record of the workload once,
// whatever the clients (client k of n sends k, k+n, ...), and the plan
// documentation says so.
func TestSequenceAcrossClients(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "seq"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bootstrap := c.ListenAddrs()[0]
	text := fmt.Sprintf(`name: seq
cluster: {bootstrap: "%s"}
workloads:
  - {name: p, type: produce, topic: seq, clients: 3, records: 301, message: {template: {n: {_type: sequence, _start: 10}}}}
`, bootstrap)
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
	if _, err := runner.Run(ctx, sc); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics("seq"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	seen := map[int]int{}
	for n := 0; n < 301; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of 301 records", n)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var v struct{ N int }
			if err := json.Unmarshal(r.Value, &v); err != nil {
				t.Fatal(err)
			}
			seen[v.N]++
			n++
		})
	}
	for i := 10; i < 311; i++ {
		if seen[i] != 1 {
			t.Fatalf("sequence %d sent %d times; want every number from 10 to 310 once (got %v)", i, seen[i], seen)
		}
	}
	doc, err := os.ReadFile("../../docs/plans.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `sequence` |") && (strings.Contains(line, "per producer client") || !strings.Contains(line, "across")) {
			t.Errorf("docs/plans.md says %q; the sequence counts across the workload's clients", line)
		}
	}
}
