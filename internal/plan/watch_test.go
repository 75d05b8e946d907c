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
	p, err := Parse("plan.yaml", []byte(plan("{groups: [orders-service, billing]}")), nil)
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
		if _, err := Parse("plan.yaml", []byte(plan(bad.watch)), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.watch, err, bad.want)
		}
	}
}
