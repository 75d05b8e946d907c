package plan

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// withZones is the fault plan with network.zones (line 16 on) before its
// faults.
func withZones(zones, faults string) string {
	return withFaults("network:\n  zones: " + zones + "\n" + faults)
}

// TestParseZones: issue 41: a plan could not say "zone a = brokers 1, 2;
// zone b = broker 3" and act on the link between the sets.
func TestParseZones(t *testing.T) {
	t.Parallel()
	p, err := testParse("plan.yaml", []byte(withZones("{a: [1, 2], b: [3, clients]}", `faults:
  - action: delay
    between: [a, b]
    latency: 20ms
    at: 5s
  - action: partition
    between: [[a, controller], b]
    at: 10s`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	a := faults.Zone{Name: "a", Brokers: []int32{1, 2}}
	b := faults.Zone{Name: "b", Brokers: []int32{3}, Clients: true}
	want := []faults.Fault{
		{Action: faults.Delay, At: 5 * time.Second, Between: []faults.Side{{Zones: []faults.Zone{a}}, {Zones: []faults.Zone{b}}},
			Params: faults.Params{"latency": 20 * time.Millisecond}},
		{Action: faults.Cut, At: 10 * time.Second, Target: faults.Target{Controller: true},
			Between: []faults.Side{{Targets: []faults.Target{{Controller: true}}, Zones: []faults.Zone{a}}, {Zones: []faults.Zone{b}}}},
	}
	for i := range want {
		if !reflect.DeepEqual(scs[0].Faults[i], want[i]) {
			t.Errorf("fault %d:\n %+v\nwant\n %+v", i, scs[0].Faults[i], want[i])
		}
	}
	if got := scs[0].Faults[0].TargetString(); got != "zone a ↔ zone b" {
		t.Errorf("the link is named %q, want zone a ↔ zone b", got)
	}
	if !p.Cluster.Local.NetworkFaults {
		t.Error("a plan with network faults must start its local cluster with network proxies")
	}
}

// TestParseBadZones: each mistake in a zone or its use is an error with
// the plan's file:line:column, the field and the way to fix it.
func TestParseBadZones(t *testing.T) {
	t.Parallel()
	delay := "faults:\n  - {action: delay, between: [a, b], latency: 20ms, at: 5s}"
	tests := []struct{ name, zones, faults, want string }{
		{"unknown broker", "{a: [1, 2], b: [4]}", delay,
			"plan.yaml:17:26: network.zones.b[0]: the local cluster has brokers 1 to 3, not 4; pick one of them or raise cluster.local.brokers"},
		{"overlap", "{a: [1, 2], b: [2, 3]}", delay,
			"plan.yaml:17:26: network.zones.b[0]: broker 2 is in zone a already; zones may not overlap (a link between them would link broker 2 with broker 2)"},
		{"clients in two zones", "{a: [1, clients], b: [3, clients]}", delay,
			"plan.yaml:17:35: network.zones.b[1]: the clients are in zone a already"},
		{"a broker twice in a zone", "{a: [1, 1], b: [3]}", delay,
			"plan.yaml:17:18: network.zones.a[1]: broker 1 is listed twice in zone a; keep one"},
		{"link between a zone and itself", "{a: [1, 2], b: [3]}", "faults:\n  - {action: delay, between: [a, [a, b]], latency: 20ms, at: 5s}",
			"plan.yaml:19:30: faults[0].between: links zone a with itself"},
		{"unknown zone", "{a: [1, 2], b: [3]}", "faults:\n  - {action: delay, between: [a, c], latency: 20ms, at: 5s}",
			`plan.yaml:19:34: faults[0].between[1]: "c" is not one of brokers, controllers, clients, controller, a or b`},
		{"a zone named like a side word", "{brokers: [1], b: [3]}", "faults:\n  - {action: delay, between: [b, clients], latency: 20ms, at: 5s}",
			`plan.yaml:17:11: network.zones.brokers: "brokers" is a word of between itself`},
		{"not a broker id", "{a: [one], b: [3]}", delay,
			`plan.yaml:17:15: network.zones.a[0]: "one" is neither a broker id nor clients`},
		{"empty zone", "{a: [], b: [3]}", delay,
			"plan.yaml:17:14: network.zones.a: is empty"},
		{"no zones", "{}", delay,
			"plan.yaml:17:10: network.zones: is a mapping; write a mapping of zone names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := testParse("plan.yaml", []byte(withZones(tt.zones, tt.faults)), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v\nwant %q", err, tt.want)
			}
		})
	}
}

// TestParseZonesOfANamedCluster: a named cluster's brokers are known once
// it is loaded; a zone's broker outside them is refused then, with where
// the plan wrote it.
func TestParseZonesOfANamedCluster(t *testing.T) {
	t.Parallel()
	plan := strings.Replace(withZones("{a: [1, 2], b: [5]}", "faults:\n  - {action: delay, between: [a, b], latency: 20ms, at: 5s}"),
		"  local: {brokers: 3}", "  name: zoned", 1)
	p, err := testParse("plan.yaml", []byte(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = p.CheckBrokers(3)
	if err == nil || !strings.Contains(err.Error(), `plan.yaml:17:26: network.zones.b[0]: cluster "zoned" has brokers 1 to 3, not 5`) {
		t.Fatalf("err %v; want broker 5 of zone b refused with its place", err)
	}
}
