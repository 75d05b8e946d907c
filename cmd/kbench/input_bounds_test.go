package main

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/plan"
)

// TestDropInInputBounds: regression: --record-size 9223372036854775807
// panicked (integer divide by zero making its values), --producers 5000
// and --threads 2147483648 ran Go out of memory (and the broker out of
// file descriptors), and --command-config /dev/zero read until the memory
// was gone. Each is bad input: exit 2, naming the flag or file and the
// limit, before anything connects.
func TestDropInInputBounds(t *testing.T) {
	t.Parallel()
	producer := []string{"producer-perf-test", "--topic", "t", "--num-records", "10", "--throughput", "-1", "--bootstrap-server", "127.0.0.1:1"}
	consumer := []string{"consumer-perf-test", "--topic", "t", "--messages", "10", "--bootstrap-server", "127.0.0.1:1"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"record size", append(producer, "--record-size", "9223372036854775807"), []string{"--record-size 9223372036854775807: at most 1073741824"}},
		{"producers", append(producer, "--record-size", "10", "--producers", "5000"), []string{"--producers 5000: at most 1000"}},
		{"threads", append(consumer, "--threads", "2147483648"), []string{"--threads 2147483648: at most 1000"}},
		{"properties file", append(producer, "--record-size", "10", "--command-config", "/dev/zero"), []string{"/dev/zero is larger than 1 MiB", "properties file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _, stderr := consumerTestState()
			if code := runKbench(t, st, tt.args...); code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	if compat.MaxClients != plan.MaxClients {
		t.Errorf("the drop-ins allow %d clients, plans %d", compat.MaxClients, plan.MaxClients)
	}
}
