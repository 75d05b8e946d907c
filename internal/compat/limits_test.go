package compat

import (
	"strings"
	"testing"
)

// TestClientAndSizeLimits: regression: --producers 5000 and --threads
// 2147483648 were accepted and ran Go out of memory; --record-size
// 9223372036854775807 was accepted and panicked making its values. Each is
// refused with the flag and the limit.
func TestClientAndSizeLimits(t *testing.T) {
	t.Parallel()
	producer := []string{"--topic", "t", "--num-records", "10", "--throughput", "-1", "--bootstrap-server", "127.0.0.1:1"}
	consumer := []string{"--topic", "t", "--messages", "10", "--bootstrap-server", "127.0.0.1:1"}
	tests := []struct {
		name     string
		consumer bool
		args     []string
		want     string // "" accepted
	}{
		{"record size at the limit", false, []string{"--record-size", "1073741824"}, ""},
		{"record size past the limit", false, []string{"--record-size", "1073741825"}, "--record-size 1073741825: at most 1073741824"},
		{"record size max int64", false, []string{"--record-size", "9223372036854775807"}, "--record-size 9223372036854775807: at most 1073741824"},
		{"producers at the limit", false, []string{"--record-size", "1", "--producers", "1000"}, ""},
		{"producers past the limit", false, []string{"--record-size", "1", "--producers", "5000"}, "--producers 5000: at most 1000"},
		{"threads at the limit", true, []string{"--threads", "1000"}, ""},
		{"threads past the limit", true, []string{"--threads", "2147483648"}, "--threads 2147483648: at most 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var err error
			if tt.consumer {
				_, err = ParseConsumerArgs(append(append([]string{}, consumer...), tt.args...), fixedRandom)
			} else {
				_, err = ParseProducerArgs(append(append([]string{}, producer...), tt.args...))
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}
