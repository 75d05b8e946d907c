package plan

import (
	"strings"
	"testing"
	"time"
)

// TestLocalTimeout: a plan's own cluster takes the start bound cluster up
// takes as --timeout (regression: the README's first command on a loaded
// machine failed after 90 s and no plan setting could raise it), and a
// bound that is not positive is refused where it is written.
func TestLocalTimeout(t *testing.T) {
	t.Parallel()
	const base = "name: p\ncluster:\n  local: {brokers: 1, timeout: %s}\ntopics: [{name: t, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: t, message: {size: 1}, records: 1}]\n"
	p, err := testParse("plan.yaml", []byte(strings.Replace(base, "%s", "3m", 1)), nil)
	if err != nil || p.Cluster.Local.Timeout != 3*time.Minute {
		t.Fatalf("timeout: 3m: %v, %v", err, p)
	}
	for _, bad := range []struct{ value, want string }{
		{"0s", "plan.yaml:3:32: cluster.local.timeout: \"0s\": a duration must be above 0"},
		{"soon", "plan.yaml:3:32: cluster.local.timeout:"},
	} {
		_, err := testParse("plan.yaml", []byte(strings.Replace(base, "%s", bad.value, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("timeout: %s: %v; want %q", bad.value, err, bad.want)
		}
	}
}

// TestLeaderLinkedWithABroker: regression: `between: [{leader: ...},
// {broker: 1}]` on a named cluster was refused as broker 1 linked with
// itself: its brokers are not known when the plan is read, and the leader
// was taken for broker 1. It is refused only on a one-broker cluster the
// plan starts, where the leader is broker 1.
func TestLeaderLinkedWithABroker(t *testing.T) {
	t.Parallel()
	const text = "name: p\ncluster: %s\ntopics: [{name: t, partitions: 3, replication: 3}]\n" +
		"workloads: [{name: w, type: produce, topic: t, message: {size: 1}, rate: 10/s, duration: 60s}]\n" +
		"faults: [{action: partition, between: [{leader: {topic: t, partition: 0}}, {broker: 1}], at: 5s, duration: 5s}]\n"
	for _, cl := range []string{"{name: three}", "{bootstrap: 'k:9092', fault_commands: {partition: 'true', heal_partition: 'true'}}", "{local: {brokers: 3}}"} {
		if _, err := testParse("plan.yaml", []byte(strings.Replace(text, "%s", cl, 1)), nil); err != nil {
			t.Errorf("cluster %s: %v", cl, err)
		}
	}
	if _, err := testParse("plan.yaml", []byte(strings.Replace(text, "%s", "{local: {brokers: 1}}", 1)), nil); err == nil || !strings.Contains(err.Error(), "links broker 1 with itself") {
		t.Errorf("a one-broker cluster the plan starts: %v; want broker 1 linked with itself", err)
	}
}
