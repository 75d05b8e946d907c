package plan

import (
	"strings"
	"testing"
)

// TestFaultCommandPlaceholders: regression: unknown placeholders in
// cluster.fault_commands ({nosuch}, {BROKER}) passed through to the command
// as written. They are refused at check time with file:line:column and the
// placeholders that command takes; braces that are
// no placeholder ({print $1}) are left alone.
func TestFaultCommandPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, commands, want string }{
		{"unknown", `{kill: "true {nosuch}", restart: "true {broker}"}`,
			"plan.yaml:4:26: cluster.fault_commands.kill: {nosuch}: not filled by kbench, so it would reach the command as written; this command takes {broker}"},
		{"upper case", `{kill: "true {broker}", restart: "true {BROKER}"}`,
			"cluster.fault_commands.restart: {BROKER}: not filled by kbench"},
		{"awk braces", `{kill: "true {broker}", restart: "true '{print $1}' {broker}"}`, ""},
		// Regression: a template's {{broker}} was taken for {broker} and
		// reached the command as {1}; {{ broker }} passed unseen.
		{"double braces", `{kill: "kubectl delete pod kafka-{{broker}}", restart: "true {{ broker }} {broker}"}`,
			"cluster.fault_commands.kill: {{broker}}: not filled by kbench, whose placeholders take single braces: {{broker}} would reach the command as {1}; this command takes {broker}"},
		{"double braces spaced", `{kill: "true {broker}", restart: "true {{ broker }} {broker}"}`,
			"cluster.fault_commands.restart: {{ broker }}: not filled by kbench, whose placeholders take single braces"},
		{"go template", `{kill: "kubectl get pods -o go-template='{{range .items}}{{.metadata.name}}{{end}}' {broker}", restart: "true {broker}"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testParse("plan.yaml", []byte(strings.Replace(remotePlan, "COMMANDS", tt.commands, 1)), nil)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v\nwant %q", err, tt.want)
			}
		})
	}
	net := `name: remote
cluster:
  bootstrap: kafka-0:9092
  fault_commands: {delay: "true {broker} {peer} {delay} {jitter}", heal_delay: "true {broker} {delay}"}
topics: [{name: t, partitions: 3}]
workloads:
  - {name: writer, type: produce, topic: t, message: {size: 100}, rate: 1k/s, duration: 60s}
faults:
  - {action: delay, between: [{broker: 0}, {broker: 1}], latency: 20ms, at: 10s, duration: 5s}
`
	_, err := testParse("plan.yaml", []byte(net), nil)
	want := "cluster.fault_commands.heal_delay: {delay}: not filled by kbench, so it would reach the command as written; this command takes {broker}, {peer}"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "fault_commands.delay:") {
		t.Fatalf("err %v\nwant %q", err, want)
	}
}

// TestFaultCommandExamples: regression: a remote plan without heal_delay
// was told to use `kubectl delete pod` to undo a delay. Each missing
// command's example is one for its action (every kind has one for each
// of its commands: faults' TestKindsAreWellFormed).
func TestFaultCommandExamples(t *testing.T) {
	t.Parallel()
	net := `name: remote
cluster:
  bootstrap: kafka-0:9092
  fault_commands: {delay: "true {broker} {peer} {delay}"}
topics: [{name: t, partitions: 3}]
workloads:
  - {name: writer, type: produce, topic: t, message: {size: 100}, rate: 1k/s, duration: 60s}
faults:
  - {action: delay, between: [{broker: 0}, {broker: 1}], latency: 20ms, at: 10s, duration: 5s}
`
	_, err := testParse("plan.yaml", []byte(net), nil)
	want := `cluster.fault_commands.heal_delay: missing; on a remote cluster kbench runs your command for each action, e.g. heal_delay: ssh kafka-{broker} "sudo tc qdisc del dev eth0 root"`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "kubectl") {
		t.Fatalf("err %v\nwant %q", err, want)
	}
}
