package cluster

import (
	"testing"

	"github.com/kbench/kbench/internal/faults"
)

// TestEndpointOfEnds: a plan's link end names the cluster's endpoints: a
// broker is its whole node (broker and controller, one process).
func TestEndpointOfEnds(t *testing.T) {
	tests := []struct {
		e    faults.Ends
		want string
	}{
		{faults.Ends{Nodes: []int32{2}}, "node 2"},
		{faults.Ends{Brokers: true, Controllers: true}, "every node"},
		{faults.Ends{Controllers: true}, "every controller"},
		{faults.Ends{Clients: true}, "the clients"},
		{faults.Ends{Nodes: []int32{1, 3}, Clients: true}, "the clients and nodes 1, 3"},
	}
	for _, tt := range tests {
		if got := endpoint(tt.e).String(); got != tt.want {
			t.Errorf("endpoint(%s) = %q, want %q", tt.e, got, tt.want)
		}
	}
}
