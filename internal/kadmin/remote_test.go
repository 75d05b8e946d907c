package kadmin

import "testing"

// TestTiers: a topic's records have moved once every partition holding
// records has its oldest ones only in the remote tier; one with no records
// has not moved.
func TestTiers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		t    Tiers
		done bool
		says string
	}{
		{"no records", Tiers{}, false, "no partition holds records yet"},
		{"one of two", Tiers{Partitions: 2, Moved: 1, Records: 1000, RemoteOnly: 300}, false, "1 of 2 partitions have their oldest records only in the remote tier (30% of 1000 records)"},
		{"moved, copies still local", Tiers{Partitions: 2, Moved: 2, Cleared: 1, Records: 1000, RemoteOnly: 300}, false, "2 of 2 partitions have their oldest records only in the remote tier (30% of 1000 records)"},
		{"all", Tiers{Partitions: 2, Moved: 2, Cleared: 2, Records: 1000, RemoteOnly: 800}, true, "2 of 2 partitions have their oldest records only in the remote tier (80% of 1000 records)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.t.Done(); got != tt.done {
				t.Errorf("Done() = %v, want %v", got, tt.done)
			}
			if got := tt.t.String(); got != tt.says {
				t.Errorf("String() = %q, want %q", got, tt.says)
			}
		})
	}
}
