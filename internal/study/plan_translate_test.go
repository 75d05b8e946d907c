package study

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload"
)

// TestPlanConsumerClientID: regression: a plan consumer in group g showed
// client.id consumer-null-1 in its settings (and its clients ran as
// "-readers-0"): the group never reached the client properties. The group
// is the consumers' group.id, and unnamed clients get the ids the Java
// consumer would give them.
func TestPlanConsumerClientID(t *testing.T) {
	tests := []struct {
		name, props  string
		wantSettings string
		wantClients  []string
	}{
		{"group", "", "consumer-g-1", []string{"consumer-g-1", "consumer-g-2"}},
		{"client.id given", "\n    properties: {client.id: mine}", "mine", []string{"mine-readers-0", "mine-readers-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan.Parse("plan.yaml", []byte(`name: ids
cluster: {bootstrap: 127.0.0.1:9092}
workloads:
  - name: readers
    type: consume
    topic: t
    group: g
    clients: 2
    records: 10`+tt.props+"\n"), nil, PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			scs, err := p.Scenarios()
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenarioOf(p, &scs[0], "127.0.0.1:9092", &build{})
			if err != nil {
				t.Fatal(err)
			}
			w := sc.Workloads[0]
			if got := w.Settings["client.id"]; got != tt.wantSettings {
				t.Errorf("settings: client.id %q, want %q", got, tt.wantSettings)
			}
			if got := w.Settings["group.id"]; got != "g" {
				t.Errorf("settings: group.id %q, want g", got)
			}
			for i, want := range tt.wantClients {
				cl, err := kgo.NewClient(w.Spec.(workload.Consume).Spec.ClientOpts(i)...)
				if err != nil {
					t.Fatal(err)
				}
				got := cl.OptValue(kgo.ClientID)
				cl.Close()
				if got != want {
					t.Errorf("client %d runs as %q, want %q", i, got, want)
				}
			}
		})
	}
}
