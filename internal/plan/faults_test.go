package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

const faultPlan = `name: failover
cluster:
  local: {brokers: 3}
topics:
  - {name: t, partitions: 3, replication: 3}
workloads:
  - name: writer
    type: produce
    topic: t
    message: {size: 100}
    rate: 1k/s
    duration: 60s
  - name: reader
    type: consume
    topic: t
FAULTS
`

func withFaults(faults string) string { return strings.Replace(faultPlan, "FAULTS", faults, 1) }

func TestParseFaults(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(withFaults(`faults:
  - name: kill-leader
    action: kill
    target: {leader: {topic: t, partition: 1}}
    at: 20s
  - action: restart
    target: {fault: kill-leader}
    after: kill-leader
    delay: 15s
  - action: bounce
    target: {broker: 2}
    times: 3
    at: 40s
  - action: pause
    target: controller
    at: 50s`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	got := scs[0].Faults
	want := []faults.Fault{
		{Name: "kill-leader", Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 1}}, At: 20 * time.Second},
		{Action: faults.Restart, Target: faults.Target{Fault: "kill-leader"}, After: "kill-leader", At: 15 * time.Second},
		{Action: faults.Bounce, Target: faults.Target{Broker: 2}, At: 40 * time.Second, Params: faults.Params{"times": int64(3)}},
		{Action: faults.Pause, Target: faults.Target{Controller: true}, At: 50 * time.Second},
	}
	if len(got) != len(want) {
		t.Fatalf("%d faults, want %d", len(got), len(want))
	}
	for i, f := range got {
		w := want[i]
		if f.Name != w.Name || f.Action != w.Action || f.At != w.At || f.After != w.After || f.Params.String() != w.Params.String() || f.Target.String() != w.Target.String() {
			t.Errorf("fault %d = %+v (target %s), want %+v (target %s)", i, f, f.Target, w, w.Target)
		}
	}
	if ws := scs[0].Workloads; !ws[0].Verify || ws[1].Verify {
		t.Errorf("verify: writer %v, reader %v; want the produce workload verified by default, the consumer not", ws[0].Verify, ws[1].Verify)
	}
}

// TestFaultKindParams: every kind's parameters are written beside the
// fault's own fields, so none may take one of their names.
func TestFaultKindParams(t *testing.T) {
	for _, name := range faults.ParamNames(faults.Kinds()) {
		if contains(commonFaultFields, name) {
			t.Errorf("a fault kind's parameter %q is also a field of every fault", name)
		}
	}
}

func TestParseVerifyWithoutFaults(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(strings.Replace(withFaults(""), "    rate: 1k/s", "    rate: 1k/s\n    verify: true", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if !scs[0].Workloads[0].Verify {
		t.Error("verify: true without faults: not verified")
	}
	p, err = testParse("plan.yaml", []byte(withFaults("")), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ = p.Scenarios()
	if scs[0].Workloads[0].Verify {
		t.Error("no faults, no verify: verified anyway")
	}
}

// TestParseBadFaults: mistakes in a timeline are caught before the run,
// each with file:line:column, the field and the fix.
func TestParseBadFaults(t *testing.T) {
	tests := []struct{ name, faults, want string }{
		{"no such broker", "faults:\n  - {action: kill, target: {broker: 4}, at: 10s}",
			"plan.yaml:17:28: faults[0].target.broker: the local cluster has brokers 1 to 3, not 4"},
		{"broker zero", "faults:\n  - {action: kill, target: {broker: 0}, at: 10s}",
			"faults[0].target.broker: the local cluster has brokers 1 to 3, not 0"},
		{"unknown action", "faults:\n  - {action: crash, target: {broker: 1}, at: 10s}",
			`plan.yaml:17:14: faults[0].action: "crash" is not one of`},
		{"unknown topic", "faults:\n  - {action: kill, target: {leader: {topic: other, partition: 0}}, at: 10s}",
			`faults[0].target.leader.topic: topic "other" is not in topics`},
		{"no such partition", "faults:\n  - {action: kill, target: {leader: {topic: t, partition: 3}}, at: 10s}",
			`faults[0].target.leader.partition: topic "t" has 3 partitions (0 to 2), not 3`},
		{"two targets", "faults:\n  - {action: kill, target: {broker: 1, controller: true}, at: 10s}",
			"faults[0].target: give exactly one of broker, leader, controller or fault"},
		{"no time", "faults:\n  - {action: kill, target: {broker: 1}}",
			"faults[0].at: missing; say when"},
		{"at and after", "faults:\n  - {name: a, action: kill, target: {broker: 1}, at: 5s}\n  - {action: restart, target: {broker: 1}, at: 10s, after: a}",
			"faults[1].after: give at (from the workloads' start) or after with delay, not both"},
		{"after unknown", "faults:\n  - {action: restart, target: {broker: 1}, after: nothing}",
			`faults[0].after: no earlier fault is named "nothing"`},
		{"target unknown fault", "faults:\n  - {action: restart, target: {fault: k}, at: 5s}",
			`faults[0].target.fault: no earlier fault is named "k"`},
		{"times on a kill", "faults:\n  - {action: kill, target: {broker: 1}, at: 5s, times: 2}",
			"faults[0].times: only a bounce repeats; leave times out of a kill"},
		{"too many bounces", "faults:\n  - {action: bounce, target: {broker: 1}, at: 5s, times: 101}",
			"faults[0].times: 101 is out of range; write a whole number from 1 to 100"},
		{"local commands", "faults:\n  - {action: kill, target: {broker: 1}, at: 5s}\ncluster:\n  fault_commands: {kill: kill-it}",
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testParse("plan.yaml", []byte(withFaults(tt.faults)), nil)
			if tt.want == "" {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v\nwant %q", err, tt.want)
			}
		})
	}
}

// TestParseFaultAfterTheEnd: regression: a fault due after its scenario
// stops sending was an error, though a run may last longer than its
// estimate; it is a warning, with where and why, and the plan runs.
func TestParseFaultAfterTheEnd(t *testing.T) {
	tests := []struct{ name, faults, want string }{
		{"after the end", "faults:\n  - {action: kill, target: {broker: 1}, at: 90s}",
			`plan.yaml:17:45: faults[0]: is due at 1m30s, but scenario "failover" stops sending at 1m0s: it will not happen; move it earlier`},
		{"delay after the end", "faults:\n  - {name: k, action: kill, target: {broker: 1}, at: 30s}\n  - {action: restart, target: {fault: k}, after: k, delay: 40s}",
			"plan.yaml:18:60: faults[1]: is due at 1m10s"},
		{"in time", "faults:\n  - {action: kill, target: {broker: 1}, at: 50s}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := testParse("plan.yaml", []byte(withFaults(tt.faults)), nil)
			if err != nil {
				t.Fatalf("err %v; want the plan accepted", err)
			}
			got := strings.Join(p.Warnings(), "\n")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("warnings %q, want %q", got, tt.want)
			}
		})
	}
}

const remotePlan = `name: remote
cluster:
  bootstrap: kafka-0:9092
  fault_commands: COMMANDS
topics:
  - {name: t, partitions: 3}
workloads:
  - {name: writer, type: produce, topic: t, message: {size: 100}, rate: 1k/s, duration: 60s}
faults:
  - {name: k, action: kill, target: {broker: 0}, at: 10s}
  - {action: restart, target: {fault: k}, after: k, delay: 10s}
`

func TestParseRemoteFaultCommands(t *testing.T) {
	tests := []struct{ name, commands, want string }{
		{"ok", `{kill: "true {broker}", restart: "true {broker}"}`, ""},
		{"missing command", `{kill: "true {broker}"}`, "cluster.fault_commands.restart: missing; on a remote cluster kbench runs your command"},
		{"not executable", `{kill: "no-such-program-kbench {broker}", restart: "true"}`, `cluster.fault_commands.kill: "no-such-program-kbench" cannot be run`},
		{"unclosed quote", `{kill: "true 'x", restart: "true"}`, "cluster.fault_commands.kill: unclosed ' quote"},
		{"unknown action", `{kill: "true", restart: "true", explode: "true"}`, `cluster.fault_commands.explode: is not an action that runs a command`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := testParse("plan.yaml", []byte(strings.Replace(remotePlan, "COMMANDS", tt.commands, 1)), nil)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Cluster.FaultCommands["kill"] != "true {broker}" {
					t.Errorf("commands %v", p.Cluster.FaultCommands)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v\nwant %q", err, tt.want)
			}
		})
	}
}

func TestParseBadVerify(t *testing.T) {
	for _, bad := range []struct{ plan, want string }{
		{strings.Replace(withFaults(""), "  - name: reader\n    type: consume\n    topic: t\n", "  - name: reader\n    type: consume\n    topic: t\n    verify: true\n", 1),
			"workloads[1].verify: verification reads back what a produce workload wrote"},
		{strings.Replace(withFaults(""), "    rate: 1k/s\n", "    rate: max\n    verify: true\n", 1),
			"workloads[0].verify: rate: max runs many short probes"},
		{strings.Replace(withFaults(""), "    rate: 1k/s\n", "    rate: 1k/s\n    verify: yes please\n", 1),
			`workloads[0].verify: "yes please" is not true or false`},
	} {
		if _, err := testParse("plan.yaml", []byte(bad.plan), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("err %v\nwant %q", err, bad.want)
		}
	}
}

// TestParseFaultsWithParameters: a timeline may use the matrix's
// parameters (each scenario's leader is on its own topic).
func TestParseFaultsWithParameters(t *testing.T) {
	text := `name: m
cluster: {local: {brokers: 3}}
topics:
  - {name: "t-${acks}", partitions: 3, replication: 3}
workloads:
  - {name: w, type: produce, topic: "t-${acks}", message: {size: 10}, rate: 1k/s, duration: 60s, properties: {acks: "${acks}"}}
faults:
  - {action: stop, target: {leader: {topic: "t-${acks}", partition: 2}}, at: 10s}
matrix:
  acks: [1, all]
`
	p, err := testParse("plan.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	for i, want := range []string{"leader of t-1-2", "leader of t-all-2"} {
		if got := scs[i].Faults[0].Target.String(); got != want {
			t.Errorf("scenario %d: target %s, want %s", i+1, got, want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(strings.Replace(withFaults(""), "    rate: 1k/s\n", "    rate: 1k/s\n    profile: throughput\n", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if scs[0].Workloads[0].Profile != "throughput" {
		t.Errorf("profile %q", scs[0].Workloads[0].Profile)
	}
	for _, bad := range []struct{ plan, want string }{
		{strings.Replace(withFaults(""), "    rate: 1k/s\n", "    rate: 1k/s\n    profile: fastest\n", 1), `workloads[0].profile: "fastest" is not one of throughput`},
		{strings.Replace(withFaults(""), "    type: consume\n", "    type: consume\n    profile: throughput\n", 1), "workloads[1].profile: a consume workload sends nothing"},
	} {
		if _, err := testParse("plan.yaml", []byte(bad.plan), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("err %v\nwant %q", err, bad.want)
		}
	}
}

const namedPlan = `name: on-cluster-up
cluster:
  CLUSTER
topics:
  - {name: t, partitions: 3, replication: 3}
workloads:
  - {name: writer, type: produce, topic: t, message: {size: 100}, rate: 1k/s, duration: 60s}
faults:
  - {name: k, action: kill, target: {broker: 5}, at: 10s}
  - {action: restart, target: {fault: k}, after: k, delay: 10s}
`

// TestParseNamedCluster: a plan runs on a cluster from kbench cluster up
// by its name; its broker targets are checked once the cluster is known,
// with where the plan wrote them.
func TestParseNamedCluster(t *testing.T) {
	tests := []struct{ name, cluster, want string }{
		{"ok", "name: kbench", ""},
		{"with bootstrap", "{name: kbench, bootstrap: 'h:9092'}", "cluster.bootstrap: give name (a cluster started with kbench cluster up) or bootstrap"},
		{"with local", "{name: kbench, local: {brokers: 3}}", "cluster.local: describes the cluster kbench starts for the plan"},
		{"with commands", "{name: kbench, fault_commands: {kill: 'true'}}", "cluster.fault_commands: apply to a remote cluster; kbench signals the brokers of the cluster named in cluster.name itself"},
		{"parent folder", "name: '..'", `plan.yaml:3:9: cluster.name: ".." is not a local cluster's name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := testParse("plan.yaml", []byte(strings.Replace(namedPlan, "CLUSTER", tt.cluster, 1)), nil)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err %v\nwant %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Cluster.Name != "kbench" {
				t.Errorf("cluster name %q", p.Cluster.Name)
			}
			if err := p.CheckBrokers(5); err != nil {
				t.Errorf("5 brokers: %v", err)
			}
			err = p.CheckBrokers(3)
			if err == nil || err.Error() != `plan.yaml:9:37: faults[0].target.broker: cluster "kbench" has brokers 1 to 3, not 5; pick one of them` {
				t.Errorf("3 brokers: %v", err)
			}
		})
	}
}
