package faults_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/study"
)

// TestPlanReadsANewNetworkKind: a plan reads the test-only corrupt kind
// (corrupt_test.go) once it is given with plan.WithFaultKind, and checks
// it as it checks the built-in network kinds, from the kind's value: its
// parameters, its link, the proxies it needs on a local cluster, the
// remote commands it needs, and the messages that list the network kinds.
// Without it, the same plan is refused.
func TestPlanReadsANewNetworkKind(t *testing.T) {
	t.Parallel()
	local := `name: corrupting
cluster: {local: {brokers: 3}}
topics: [{name: t, partitions: 3}]
workloads:
  - {name: writer, type: produce, topic: t, message: {size: 100}, rate: 1k/s, duration: 60s}
faults:
  - {action: corrupt, between: [{broker: 1}, brokers], share: 5%, at: 10s, duration: 5s}
`
	if _, err := plan.Parse("plan.yaml", []byte(local), nil, study.PlanTypes()...); err == nil || !strings.Contains(err.Error(), "faults[0].action") {
		t.Fatalf("without the kind: %v; want faults[0].action refused", err)
	}
	p, err := plan.Parse("plan.yaml", []byte(local), nil, append(study.PlanTypes(), plan.WithFaultKind(faults.Corrupt))...)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Cluster.Local.NetworkFaults {
		t.Error("a plan with a corrupt fault must start its local cluster with network proxies")
	}
	scs, _ := p.Scenarios()
	want := faults.Fault{Action: "corrupt", Target: faults.Target{Broker: 1}, At: 10 * time.Second,
		Between: []faults.Side{{Targets: []faults.Target{{Broker: 1}}}, {Brokers: true}},
		Params:  faults.Params{"share": 0.05, "duration": 5 * time.Second}}
	if got := scs[0].Faults[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("fault:\n %+v\nwant\n %+v", got, want)
	}

	tests := []struct {
		name, plan, want string
	}{
		{"its required parameter", strings.Replace(local, "share: 5%, ", "", 1),
			"faults[0].share: missing; a corrupt needs share (share: 5%)"},
		{"its parameters only", strings.Replace(local, "share: 5%", "share: 5%, latency: 20ms", 1),
			"faults[0].latency: only a delay holds each byte back, each way; leave latency out of a corrupt"},
		{"a link only for network kinds, which it is one of", strings.Replace(local, "action: corrupt", "action: kill", 1),
			"faults[0].between: only network faults (delay, loss, bandwidth, partition, corrupt) act on a link; a kill acts on its target"},
		{"its remote commands", strings.Replace(local, "cluster: {local: {brokers: 3}}", `cluster: {bootstrap: "kafka-0:9092", fault_commands: {corrupt: "echo {broker} {peer} {loss}"}}`, 1),
			`cluster.fault_commands.heal_corrupt: missing; on a remote cluster kbench runs your command for each action, e.g. heal_corrupt: ssh kafka-{broker} "sudo tc qdisc del dev eth0 root"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := plan.Parse("plan.yaml", []byte(tt.plan), nil, append(study.PlanTypes(), plan.WithFaultKind(faults.Corrupt))...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v\nwant %q", err, tt.want)
			}
		})
	}
}
