package plan

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

// TestParseMessages: regressions in what a bad plan is told: a tab gave
// "found character that cannot start any token" with no column; --set
// 'matrix.size={}' was blamed on the plan's line (a list of one empty
// value); an end-to-end workload whose topic the plan does not prepare
// passed, to fail once the run had started.
func TestParseMessages(t *testing.T) {
	t.Parallel()
	const w0 = "workloads:\n  - name: p\n    type: produce\n    topic: t\n    message: {size: \"${sz}\"}\n    records: 1000\nmatrix: {sz: [10]}\n"
	tests := []struct {
		name, plan string
		sets       []string
		want, not  string
	}{
		{"tab indenting a list", "name: x\nworkloads:\n\t- name: p\n", nil,
			"plan.yaml:3:1: YAML syntax error: a tab character; YAML indents with spaces only: replace the tab with spaces", ""},
		{"tab after spaces", "name: x\nworkloads:\n  - name: p\n    \ttype: produce\n", nil, "plan.yaml:4:5: YAML syntax error: a tab character", ""},
		{"tab in a nested mapping", "name: x\ncluster:\n  bootstrap: h\n\tproperties: {}\n" + w0, nil, "plan.yaml:4:1: YAML syntax error: a tab character", ""},
		{"--set {}", "name: x\n" + w0, []string{"matrix.sz={}"},
			"--set matrix.sz={}: matrix.sz: is an empty list; give at least one value", "plan.yaml:"},
		{"--set value used in the file", "name: x\n" + w0, []string{"matrix.sz={abc}"},
			`plan.yaml:6:21: workloads[0].message.size: "abc" is not a size; write a number of bytes such as 100, 100B, 4KB (4,000 B), 4KiB (4,096 B), 1MB or 1MiB (${sz} = abc, from --set matrix.sz={abc})`, ""},
		{"end-to-end topic not prepared", "name: x\ntopics: [{name: a, partitions: 1}]\nworkloads:\n  - {name: e, type: end-to-end, topic: b, message: {size: 1}, records: 5}\n", nil,
			`plan.yaml:4:40: workloads[0].topic: "b" is not in topics; an end-to-end workload reads its topic from the start, so the plan must prepare it: add {name: b, partitions: N} to topics`, ""},
		{"end-to-end without topics", "name: x\nworkloads:\n  - {name: e, type: end-to-end, topic: b, message: {size: 1}, records: 5}\n", nil,
			`workloads[0].topic: "b" is not in topics`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := testParse("plan.yaml", []byte(tt.plan), tt.sets)
			if err == nil || !userr.Is(err) {
				t.Fatalf("err %v; want a usage error %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
			if tt.not != "" && strings.Contains(err.Error(), tt.not) {
				t.Errorf("error:\n%v\nmust not contain %q", err, tt.not)
			}
		})
	}
	// Prepared by topics (with existing: reuse too), an end-to-end
	// workload's topic passes.
	for _, topics := range []string{"[{name: b, partitions: 1}]", "[{name: b, existing: reuse}]"} {
		plan := "name: x\ntopics: " + topics + "\nworkloads:\n  - {name: e, type: end-to-end, topic: b, message: {size: 1}, records: 5}\n"
		if _, err := testParse("plan.yaml", []byte(plan), nil); err != nil {
			t.Errorf("topics %s: %v", topics, err)
		}
	}
}
