package timeline

import (
	"testing"

	"github.com/kbench/kbench/internal/faults"
)

// TestCutOf: what a partition cut its broker off from decides whether
// the controller can fence it (issue 41): the other nodes or the
// controllers take its session away; the word brokers is the brokers'
// listeners only, and leaves its controller connections alone.
func TestCutOf(t *testing.T) {
	t.Parallel()
	one := faults.Ends{Nodes: []int32{3}}
	tests := []struct {
		name   string
		action string
		link   *faults.Link
		want   string
	}{
		{"brokers and controllers", faults.Cut, &faults.Link{one, {Brokers: true, Controllers: true}}, CutQuorum},
		{"other nodes", faults.Cut, &faults.Link{one, {Nodes: []int32{1, 2}}}, CutQuorum},
		{"brokers only", faults.Cut, &faults.Link{one, {Brokers: true}}, CutBrokers},
		{"clients only", faults.Cut, &faults.Link{one, {Clients: true}}, ""},
		{"a delay", faults.Delay, &faults.Link{one, {Brokers: true, Controllers: true}}, ""},
		{"several brokers", faults.Cut, &faults.Link{{Nodes: []int32{1, 2}}, {Brokers: true}}, ""},
	}
	for _, tt := range tests {
		if got := cutOf(faults.Kinds()[tt.action].Effect, tt.link); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
