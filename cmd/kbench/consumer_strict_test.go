package main

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/testkafka"
)

// TestConsumerPerfShortRunExit guards issue 33 item 8: consumer-perf-test
// exited 1 where the Apache tool exits 0 when --timeout ends the run
// before --messages arrived, and scripts checking $? broke. It exits 0
// and says the shortfall on stderr; --strict keeps the exit 1.
func TestConsumerPerfShortRunExit(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := consumerTopic(t, bootstrap, 1, 50)
	tests := []struct {
		name       string
		extra      []string
		wantCode   int
		wantStderr string
	}{
		{"as the Apache tool", nil, exitOK, "consumed 50 of 60 records; no record arrived for 3s (--timeout 3000); exit 0 as the Apache tool's"},
		{"--strict", []string{"--strict"}, exitFailure, "consumed 50 of 60 records"},
	}
	for _, tt := range tests {
		st, stdout, stderr := consumerTestState()
		args := append([]string{"consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic, "--messages", "60", "--timeout", "3000"}, tt.extra...)
		if code := runKbench(t, st, args...); code != tt.wantCode {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.name, code, tt.wantCode, stdout, stderr)
		}
		if !strings.Contains(stderr.String(), tt.wantStderr) {
			t.Errorf("%s: stderr %q, want %q", tt.name, stderr, tt.wantStderr)
		}
		if !strings.Contains(stdout.String(), "WARNING: Exiting before consuming the expected number of records") {
			t.Errorf("%s: stdout %q lacks the Apache tool's warning", tt.name, stdout)
		}
	}
}
