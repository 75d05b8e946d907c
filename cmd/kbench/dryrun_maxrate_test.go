package main

import (
	"strings"
	"testing"
)

// TestDryRunMaxRateBounds: --dry-run prints a rate search's floor, ceiling
// and time bound (the example's, and the defaults: start/10 and 1h).
func TestDryRunMaxRateBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{nil, "; rates from 1000 records/s, none below the floor 100; ends within 1h0m0s (max_time)"},
		{[]string{"--set", "workloads[0].slo.floor=250/s", "--set", "workloads[0].slo.ceiling=20k/s", "--set", "workloads[0].slo.max_time=20m"},
			"; rates from 1000 records/s, none below the floor 250 nor above the ceiling 20000; ends within 20m0s (max_time)"},
	} {
		st, stdout, stderr := consumerTestState()
		args := append([]string{"run", "../../examples/max-rate.yaml", "--dry-run"}, tt.sets...)
		if code := runKbench(t, st, args...); code != exitOK {
			t.Fatalf("dry run: exit %d\n%s", code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("dry run lacks %q:\n%s", tt.want, stdout.String())
		}
	}
}
