package plan

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseWatch: watch names the system's own consumer groups.
func TestParseWatch(t *testing.T) {
	t.Parallel()
	plan := func(watch string) string {
		return "name: w\ncluster: {bootstrap: h:9092}\nworkloads:\n  - {name: w, type: produce, topic: t, records: 10, message: {size: 10}}\nwatch: " + watch + "\n"
	}
	p, err := testParse("plan.yaml", []byte(plan("{groups: [orders-service, billing]}")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Watch == nil || !reflect.DeepEqual(p.Watch.Groups, []string{"orders-service", "billing"}) {
		t.Errorf("watch %+v", p.Watch)
	}
	for _, bad := range []struct{ watch, want string }{
		{"{groups: []}", "plan.yaml:5:17: watch.groups: is an empty list; write a list of consumer group names"},
		{"{groups: orders}", `watch.groups: is "orders"; write a list`},
		{"{groups: [a, a]}", `watch.groups[1]: "a" is given twice`},
		{"{groups: ['']}", "watch.groups[0]: is empty"},
		{"{topics: [a]}", `unknown field "topics"`},
		{"{}", "watch: is empty"},
	} {
		if _, err := testParse("plan.yaml", []byte(plan(bad.watch)), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.watch, err, bad.want)
		}
	}
}

// TestParseLatestPerKey: verify: {latest_per_key: true} needs keyed
// records on a compacted topic.
func TestParseLatestPerKey(t *testing.T) {
	t.Parallel()
	plan := func(configs, message string) string {
		return "name: c\ncluster: {bootstrap: h:9092}\ntopics: [{name: t, partitions: 1, replication: 1" + configs + "}]\nworkloads:\n  - {name: w, type: produce, topic: t, records: 10, message: " + message + ", verify: {latest_per_key: true}}\n"
	}
	p, err := testParse("plan.yaml", []byte(plan(", configs: {cleanup.policy: compact}", "{size: 10, key_range: 100}")), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if w := scs[0].Workloads[0]; !w.Verify || !w.LatestPerKey {
		t.Errorf("verify %v, latest per key %v; want both", w.Verify, w.LatestPerKey)
	}
	for _, bad := range []struct{ configs, message, want string }{
		{", configs: {cleanup.policy: compact}", "{size: 10}", "workloads[0].verify.latest_per_key: needs keyed records"},
		{"", "{size: 10, key_range: 100}", "workloads[0].verify.latest_per_key: topic t is not compacted: give it configs: {cleanup.policy: compact}"},
	} {
		if _, err := testParse("plan.yaml", []byte(plan(bad.configs, bad.message)), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %s: err %v, want %q", bad.configs, bad.message, err, bad.want)
		}
	}
}
