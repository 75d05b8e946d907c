package plan

import (
	"strings"
	"testing"
)

// TestLoadMessagesRoundTwo: regression: `vus: 1000000000` was refused as out of
// range and then as "0 virtual users send nothing" (it read 0 after the
// range error), and `stages: []` said "is a list; write a list".
func TestLoadMessagesRoundTwo(t *testing.T) {
	t.Parallel()
	plan := "name: m\ncluster: {bootstrap: h:9092}\nworkloads:\n  - {name: w, type: produce, topic: t, message: {size: 10}, LOAD}\n"
	tests := []struct{ load, want, not string }{
		{"vus: 1000000000, duration: 10s", "workloads[0].vus: 1000000000 is out of range", "send nothing"},
		{"vus: 0, duration: 10s", "workloads[0].vus: 0 virtual users send nothing", ""},
		{"stages: []", "workloads[0].stages: is an empty list: a load needs at least one stage; write a list such as", "is a list;"},
	}
	for _, tt := range tests {
		_, err := testParse("plan.yaml", []byte(strings.Replace(plan, "LOAD", tt.load, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || tt.not != "" && strings.Contains(err.Error(), tt.not) {
			t.Errorf("%s: %v\nwant %q, not %q", tt.load, err, tt.want, tt.not)
		}
	}
}

// TestLoadThatSendsNothing: regression: `stages` of 1ns ran, sent nothing
// and reported "ok", exit 0. A paced load asking for less than one record
// is refused when the plan is checked; so is a ramp of 0 virtual users
// throughout, which the dry run passed in silence.
func TestLoadThatSendsNothing(t *testing.T) {
	t.Parallel()
	plan := "name: m\ncluster: {bootstrap: h:9092}\nworkloads:\n  - {name: w, type: produce, topic: t, message: {size: 10}, LOAD}\n"
	tests := []struct{ load, want string }{
		{"stages: [{duration: 1ns, rate: 10/s}]", "plan.yaml:4:69: workloads[0].stages: ask for 5e-09 records in 1ns, less than one: nothing would be sent"},
		{"rate: 10/s, duration: 50ms", "workloads[0].duration: 50ms at 10 records/s is 0.5 records, less than one"},
		{"stages: [{duration: 10s, rate: 0/s}]", "workloads[0].stages: ask for 0 records in 10s"},
		{"rate: 10/s, duration: 100ms", ""},
		{"vus: 0, stages: [{duration: 5s, vus: 0}]", "plan.yaml:4:77: workloads[0].stages: keep 0 virtual users throughout: nothing would be sent"},
		{"vus: 0, stages: [{duration: 5s, vus: 0}, {duration: 5s, vus: 2}]", ""},
		{"stages: [{duration: 5s, vus: 0}]", ""}, // from the default 1 user down to 0
	}
	for _, tt := range tests {
		_, err := testParse("plan.yaml", []byte(strings.Replace(plan, "LOAD", tt.load, 1)), nil)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v\nwant %q", tt.load, err, tt.want)
		}
	}
}
