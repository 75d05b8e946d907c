package plan

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseBrokerConfigs: cluster.broker_configs are dynamic broker
// settings per scenario, and the matrix may sweep them.
func TestParseBrokerConfigs(t *testing.T) {
	t.Parallel()
	plan := func(cluster, matrix string) string {
		return "name: b\ncluster: {bootstrap: h:9092, broker_configs: " + cluster + "}\nworkloads:\n  - {name: w, type: produce, topic: t, records: 10, message: {size: 10}}\n" + matrix
	}
	p, err := testParse("plan.yaml", []byte(plan("{num.io.threads: '${io}', log.cleaner.threads: 2}", "matrix: {io: [4, 8]}\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	var got []map[string]string
	for _, sc := range scs {
		got = append(got, sc.BrokerConfigs)
	}
	want := []map[string]string{{"num.io.threads": "4", "log.cleaner.threads": "2"}, {"num.io.threads": "8", "log.cleaner.threads": "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("broker configs %v, want %v", got, want)
	}
	for _, bad := range []struct{ cluster, matrix, want string }{
		{"[a, b]", "", "plan.yaml:2:46: cluster.broker_configs: is a list; write a mapping"},
		{"{num.io.threads: ''}", "", "cluster.broker_configs.num.io.threads: is empty"},
		{"{num.io.threads: {x: 1}}", "", "cluster.broker_configs.num.io.threads"},
		{"{num.io.threads: '${nope}'}", "", "${nope} is not a matrix parameter"},
	} {
		if _, err := testParse("plan.yaml", []byte(plan(bad.cluster, bad.matrix)), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.cluster, err, bad.want)
		}
	}
	// Elsewhere in cluster:, a parameter is still refused.
	text := strings.Replace(plan("{a: 1}", "matrix: {io: [4, 8]}\n"), "h:9092", "'${io}'", 1)
	if _, err := testParse("plan.yaml", []byte(text), nil); err == nil || !strings.Contains(err.Error(), "cluster.bootstrap: ${io}: matrix parameters apply to topics, workloads, faults and cluster.broker_configs only") {
		t.Errorf("bootstrap with a parameter: %v", err)
	}
}
