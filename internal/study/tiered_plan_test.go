package study

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/plan"
)

// tieredPlan is a catch-up read from the remote tier on the cluster kbench
// starts; the tests below break one part of it at a time.
const tieredPlan = `name: tiered
cluster:
  local: {tiered_storage: true}
topics:
  - name: cold
    partitions: 2
    configs: {remote.storage.enable: true, local.retention.bytes: 1, segment.bytes: 1048576}
workloads:
  - {name: writers, type: produce, topic: cold, records: 4000, message: {size: 1000}}
  - {name: readers, type: consume, topic: cold, records: 4000, start_after: writers, wait_for: remote}
`

// TestTieredPlanErrors: tiered storage asked of a cluster that cannot give
// it, and a wait for the remote tier on a topic whose records never reach
// it, are refused at their file:line:column; a good plan reads, and the
// dry run says what the wait checks.
func TestTieredPlanErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		from string // replaced in tieredPlan
		to   string
		want string // "" : no error
	}{
		{"a good plan", "", "", ""},
		{"no tiered storage on the cluster kbench starts", "  local: {tiered_storage: true}\n", "  local: {brokers: 1}\n",
			"plan.yaml:7:38: topics[0].configs.remote.storage.enable: the cluster kbench starts for the plan has no tiered storage, and Kafka refuses the topic; add cluster.local.tiered_storage: true"},
		{"a remote cluster's topic without remote storage", "  local: {tiered_storage: true}\n", "  bootstrap: 127.0.0.1:9092\n",
			`plan.yaml:10:96: workloads[1].wait_for: topic "cold" lacks remote.storage.enable: true in its configs`},
		{"a remote cluster's topic not prepared", "topic: cold, records: 4000, start_after", "topic: other, records: 4000, start_after",
			`plan.yaml:10:97: workloads[1].wait_for: topic "other" is not in topics, so kbench cannot know that its records go to a remote tier`},
		{"remote storage off", "remote.storage.enable: true", "remote.storage.enable: false",
			`plan.yaml:10:96: workloads[1].wait_for: topic "cold" lacks remote.storage.enable: true in its configs`},
		{"no local retention", "local.retention.bytes: 1, ", "",
			`plan.yaml:10:96: workloads[1].wait_for: topic "cold" keeps every segment locally`},
		{"a value other than remote", "wait_for: remote}", "wait_for: cloud}",
			`plan.yaml:10:96: workloads[1].wait_for: "cloud" is not one of`},
		{"on a producer", "message: {size: 1000}}", "message: {size: 1000}, wait_for: remote}",
			`plan.yaml:9:97: workloads[0].wait_for: only consume workloads wait for the remote tier`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := tieredPlan
			if tt.from != "" {
				if !strings.Contains(text, tt.from) {
					t.Fatalf("the plan has no %q", tt.from)
				}
				text = strings.Replace(text, tt.from, tt.to, 1)
			}
			if tt.name == "a remote cluster's topic without remote storage" {
				text = strings.Replace(text, "remote.storage.enable: true, ", "", 1)
			}
			p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("a good plan refused: %v", err)
				}
				scs, err := p.Scenarios()
				if err != nil {
					t.Fatal(err)
				}
				w := scs[0].Workloads[1]
				if line := w.TieredLine(); !strings.Contains(line, "readers waits (at most 2m0s) until every partition of topic cold holding records has its oldest records only in the remote tier") {
					t.Errorf("dry-run line %q", line)
				}
				if !p.Cluster.Local.TieredStorage || !p.Cluster.Local.RemoteStorage {
					t.Errorf("local %+v: want tiered storage asked and used", p.Cluster.Local)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
		})
	}
}
