package report

import (
	"reflect"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestTierTable: on brokers with remote storage, each consume workload's
// read rate sits beside its topic's bytes from each tier, summed over the
// brokers; a run on brokers without remote storage has no such table.
func TestTierTable(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	reader := func(name string, rps float64) result.Workload {
		return result.Workload{Name: name, Type: "consume", Topic: &result.Topic{Name: "backlog", Partitions: 2},
			Consumer: &result.Consumer{Records: 60000, RecordsPerSec: rps, MiBPerSec: rps * 1000 / (1 << 20)}}
	}
	tiered := func(remote, out float64) []result.BrokerCost {
		return []result.BrokerCost{
			{ID: 1, Kafka: &result.KafkaMetrics{RemoteFetchBytes: f(remote / 2), RemoteCopyBytes: f(0),
				Fetch:  &result.RequestTimes{Requests: f(100), Total: &result.Time{Mean: f(10), P99: f(40)}},
				Topics: map[string]*result.TopicBytes{"backlog": {BytesOut: f(out / 2), RemoteFetchBytes: f(remote / 2)}}}},
			{ID: 2, Kafka: &result.KafkaMetrics{RemoteFetchBytes: f(remote / 2), RemoteCopyBytes: f(0),
				Fetch:  &result.RequestTimes{Requests: f(300), Total: &result.Time{Mean: f(30), P99: f(90)}},
				Topics: map[string]*result.TopicBytes{"backlog": {BytesOut: f(out / 2), RemoteFetchBytes: f(remote / 2)}}}},
		}
	}
	tests := []struct {
		name string
		run  *result.PlanRun
		want [][]string // nil: no table
	}{
		{"local and remote side by side", &result.PlanRun{Scenarios: []result.Scenario{
			{Name: "tier=local", Repeats: []result.Repeat{{Index: 1, Workloads: []result.Workload{reader("readers", 50000)}, Brokers: tiered(0, 60<<20)}}},
			{Name: "tier=remote", Repeats: []result.Repeat{{Index: 1, Workloads: []result.Workload{reader("readers", 20000)}, Brokers: tiered(56<<20, 60<<20)}}},
		}}, [][]string{
			{"tier=local", "1", "readers", "backlog", "50000", "47.7", "0.0", "60.0", "0.0", "25.0", "90"},
			{"tier=remote", "1", "readers", "backlog", "20000", "19.1", "56.0", "4.0", "0.0", "25.0", "90"},
		}},
		{"no remote storage", &result.PlanRun{Scenarios: []result.Scenario{
			{Name: "s", Repeats: []result.Repeat{{Index: 1, Workloads: []result.Workload{reader("readers", 50000)},
				Brokers: []result.BrokerCost{{ID: 1, Kafka: &result.KafkaMetrics{BytesOut: f(1)}}}}}},
		}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := tierTable(tt.run)
			if tt.want == nil {
				if tb != nil {
					t.Fatalf("a table %+v, want none", tb)
				}
				return
			}
			if tb == nil || !reflect.DeepEqual(tb.Rows, tt.want) {
				t.Fatalf("rows %v, want %v", tb, tt.want)
			}
		})
	}
}
