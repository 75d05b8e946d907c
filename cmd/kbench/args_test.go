package main

import (
	"strings"
	"testing"
)

// TestWrongArgumentCount: regression: `kbench run`, `report`, `preview`,
// `cluster up` ... with the wrong number of arguments exited 1 with cobra's
// "accepts 1 arg(s), received 0", naming neither the command nor its usage.
// Every subcommand that takes a fixed number of arguments is here.
func TestWrongArgumentCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string // the message's start; the usage line follows
	}{
		{[]string{"run"}, "run: accepts 1 arg(s), received 0; usage: kbench run PLAN.yaml"},
		{[]string{"run", "a.yaml", "b.yaml"}, "run: accepts 1 arg(s), received 2; usage: kbench run PLAN.yaml"},
		{[]string{"report"}, "report: accepts 1 arg(s), received 0; usage: kbench report DIR"},
		{[]string{"preview"}, "preview: accepts 1 arg(s), received 0; usage: kbench preview PLAN.yaml"},
		{[]string{"cluster", "up", "x"}, `cluster up: takes no arguments, got "x"; usage: kbench cluster up [flags]`},
		{[]string{"cluster", "down", "x"}, `cluster down: takes no arguments, got "x"; usage: kbench cluster down [flags]`},
		{[]string{"cluster", "status", "x"}, `cluster status: takes no arguments, got "x"; usage: kbench cluster status [flags]`},
		{[]string{"cluster", "classpath", "x"}, `cluster classpath: takes no arguments, got "x"; usage: kbench cluster classpath [flags]`},
		{[]string{"version", "x"}, `version: takes no arguments, got "x"; usage: kbench version`},
		{[]string{"size", "x"}, `size: unexpected argument "x"`},
		{[]string{"compare", "a"}, "compare: takes two results"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := consumerTestState()
			code := runKbench(t, st, tt.args...)
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tt.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q; the error goes to stderr only", stdout)
			}
		})
	}
}
