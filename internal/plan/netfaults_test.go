package plan

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

func TestParseNetworkFaults(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(withFaults(`faults:
  - name: cut
    action: partition
    between: [{leader: {topic: t, partition: 0}}, [brokers, controllers]]
    at: 10s
  - action: heal
    target: {fault: cut}
    after: cut
    delay: 20s
  - action: delay
    between: [brokers, brokers]
    latency: 20ms
    jitter: 2ms
    at: 5s
    duration: 10s
  - action: loss
    target: clients
    share: 5%
    at: 5s
  - action: bandwidth
    target: {broker: 2}
    rate: 1MB/s
    at: 5s`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Cluster.Local.NetworkFaults {
		t.Error("a plan with network faults must start its local cluster with network proxies")
	}
	scs, _ := p.Scenarios()
	leader := faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}
	want := []faults.Fault{
		{Name: "cut", Action: faults.Cut, Target: leader, At: 10 * time.Second,
			Between: []faults.Side{{Targets: []faults.Target{leader}}, {Brokers: true, Controllers: true}}},
		{Action: faults.HealLink, Target: faults.Target{Fault: "cut"}, After: "cut", At: 20 * time.Second},
		{Action: faults.Delay, At: 5 * time.Second, Between: []faults.Side{{Brokers: true}, {Brokers: true}},
			Params: faults.Params{"latency": 20 * time.Millisecond, "jitter": 2 * time.Millisecond, "duration": 10 * time.Second}},
		{Action: faults.Loss, Target: faults.Target{Clients: true}, At: 5 * time.Second,
			Between: []faults.Side{{Clients: true}, {Brokers: true}}, Params: faults.Params{"share": 0.05}},
		{Action: faults.Bandwidth, Target: faults.Target{Broker: 2}, At: 5 * time.Second,
			Between: []faults.Side{{Targets: []faults.Target{{Broker: 2}}}, {Brokers: true, Controllers: true, Clients: true}},
			Params:  faults.Params{"rate": int64(1e6)}},
	}
	for i := range want {
		if !reflect.DeepEqual(scs[0].Faults[i], want[i]) {
			t.Errorf("fault %d:\n %+v\nwant\n %+v", i, scs[0].Faults[i], want[i])
		}
	}
}

func TestParseBadNetworkFaults(t *testing.T) {
	tests := []struct{ name, faults, want string }{
		{"latency without unit", "faults:\n  - {action: delay, target: {broker: 1}, latency: 20, at: 5s}",
			`plan.yaml:17:51: faults[0].latency: "20" has no unit; write a duration such as 90s`},
		{"no latency", "faults:\n  - {action: delay, target: {broker: 1}, at: 5s}",
			"faults[0].latency: missing; a delay needs latency (latency: 20ms)"},
		{"delay field for latency", "faults:\n  - {action: delay, target: {broker: 1}, delay: 20ms}",
			"faults[0].delay: delay counts from the fault named in after; a delay fault's latency is latency: 20ms"},
		{"self link", "faults:\n  - {action: partition, between: [{broker: 2}, {broker: 2}], at: 5s}",
			"plan.yaml:17:34: faults[0].between: links broker 2 with itself"},
		{"clients and clients", "faults:\n  - {action: partition, between: [clients, clients], at: 5s}",
			"faults[0].between: a partition between clients and clients isolates nothing"},
		{"share over 100%", "faults:\n  - {action: loss, target: clients, share: 120%, at: 5s}",
			"faults[0].share: 120% is outside 0% to 100%"},
		{"share as a bare percent", "faults:\n  - {action: loss, target: clients, share: 5, at: 5s}",
			"faults[0].share: 5 is above 1; write 5% for 5 percent"},
		{"negative share", "faults:\n  - {action: loss, target: clients, share: -0.1, at: 5s}",
			"faults[0].share: -0.1 is outside 0% to 100%"},
		{"rate without per second", "faults:\n  - {action: bandwidth, target: clients, rate: 1MB, at: 5s}",
			`faults[0].rate: "1MB" is not bytes per second`},
		{"rate below the proxies' unit", "faults:\n  - {action: bandwidth, target: clients, rate: 10B/s, at: 5s}",
			"faults[0].rate: 10B/s is out of range"},
		{"target and between", "faults:\n  - {action: delay, target: {broker: 1}, between: [brokers, clients], latency: 5ms, at: 5s}",
			"faults[0].between: give target (the broker or clients and every link of it) or between: [A, B], not both"},
		{"between on a kill", "faults:\n  - {action: kill, target: {broker: 1}, between: [brokers, clients], at: 5s}",
			"faults[0].between: only network faults (delay, loss, bandwidth, partition) act on a link"},
		{"clients on a kill", "faults:\n  - {action: kill, target: clients, at: 5s}",
			"faults[0].target: a kill acts on a broker"},
		{"bad side", "faults:\n  - {action: partition, between: [{broker: 1}, zone-b], at: 5s}",
			`faults[0].between[1]: "zone-b" is not one of`},
		{"one side", "faults:\n  - {action: partition, between: [{broker: 1}], at: 5s}",
			"faults[0].between: is a list of 1; write between: [A, B]"},
		{"side broker out of range", "faults:\n  - {action: partition, between: [{broker: 1}, {broker: 7}], at: 5s}",
			"faults[0].target.broker: the local cluster has brokers 1 to 3, not 7"},
		{"heal of a kill", "faults:\n  - {name: k, action: kill, target: {broker: 1}, at: 5s}\n  - {action: heal, target: {fault: k}, at: 9s}",
			`faults[1].target.fault: fault "k" is a kill, not a network fault`},
		{"heal of a fault with a duration", "faults:\n  - {name: d, action: delay, target: {broker: 1}, latency: 5ms, duration: 5s, at: 5s}\n  - {action: heal, target: {fault: d}, at: 20s}",
			`faults[1].target.fault: fault "d" heals itself after its duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testParse("plan.yaml", []byte(withFaults(tt.faults)), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v\nwant %q", err, tt.want)
			}
		})
	}
	// On one broker, the leader is broker 1 and has no other broker.
	oneBroker := strings.Replace(withFaults("faults:\n  - {action: partition, between: [{leader: {topic: t, partition: 0}}, brokers], at: 5s}"), "{brokers: 3}", "{brokers: 1}", 1)
	oneBroker = strings.Replace(oneBroker, "replication: 3", "replication: 1", 1)
	for _, tt := range []struct{ name, faults, want string }{{"one broker", oneBroker, "faults[0].between: a partition between leader of t-0 and brokers isolates nothing"}} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testParse("plan.yaml", []byte(tt.faults), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v\nwant %q", err, tt.want)
			}
		})
	}
}

func TestParseRemoteNetworkFaultCommands(t *testing.T) {
	plan := strings.Replace(remotePlan, "COMMANDS", `{delay: "true {broker} {peer} {delay}"}`, 1)
	plan = strings.Replace(plan, `  - {name: k, action: kill, target: {broker: 0}, at: 10s}
  - {action: restart, target: {fault: k}, after: k, delay: 10s}`, "  - {action: delay, between: [{broker: 0}, brokers], latency: 20ms, at: 10s}", 1)
	_, err := testParse("plan.yaml", []byte(plan), nil)
	if err == nil || !strings.Contains(err.Error(), "cluster.fault_commands.heal_delay: missing") || strings.Contains(err.Error(), "fault_commands.delay") {
		t.Fatalf("err %v; want the heal_delay command asked for, and delay's taken", err)
	}
}

// TestParseDelayOfZero: latency 0 is a matrix's baseline (no delay), not
// an error; 0ms, and a jitter of 0, are still refused.
func TestParseDelayOfZero(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(withFaults("faults:\n  - {action: delay, between: [brokers, brokers], latency: 0, at: 5s}")), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if d, ok := scs[0].Faults[0].Params["latency"]; !ok || d != time.Duration(0) {
		t.Errorf("params %v; want latency 0", scs[0].Faults[0].Params)
	}
	_, err = testParse("plan.yaml", []byte(withFaults("faults:\n  - {action: delay, between: [brokers, brokers], latency: 5ms, jitter: 0, at: 5s}")), nil)
	if err == nil || !strings.Contains(err.Error(), "faults[0].jitter") {
		t.Errorf("err %v; want jitter 0 refused (leave it out)", err)
	}
}
