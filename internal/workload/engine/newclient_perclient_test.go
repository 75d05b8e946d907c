package engine

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Each client's options are its own copy: client 1's id does not land
// in the shared slice's spare capacity, where client 0's would read it.
func TestPerClientCopiesTheShared(t *testing.T) {
	shared := make([]kgo.Opt, 1, 8) // spare capacity a careless append would write into
	shared[0] = kgo.SeedBrokers("127.0.0.1:9092")
	opts := PerClient(shared, func(i int) []kgo.Opt { return []kgo.Opt{kgo.ClientID(string(rune('a' + i)))} })
	a, b := opts(0), opts(1)
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("options %d and %d, want 2 each", len(a), len(b))
	}
	if &a[0] == &b[0] || &a[0] == &shared[0] {
		t.Error("clients share one backing array of options")
	}
	if len(shared) != 1 {
		t.Errorf("the shared options grew to %d", len(shared))
	}
}
