package result

import (
	"testing"
	"time"
)

// TestGroupSettling: a member joining and leaving a running group, read
// from the members' changes; the group's own start and end are not
// changes, and members of another group are apart.
func TestGroupSettling(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	reader := func(name, group string, cs ...GroupChange) Workload {
		return Workload{Name: name, Type: "consume", Config: map[string]string{"group.id": group}, Consumer: &Consumer{GroupChanges: cs}}
	}
	base := reader("base", "g",
		GroupChange{At: at(0), Client: 0, Event: "joined"},
		GroupChange{At: at(0), Client: 1, Event: "joined"},
		GroupChange{At: at(3000), Client: 0, Event: "assigned", Partitions: 3},
		GroupChange{At: at(3000), Client: 1, Event: "assigned", Partitions: 3},
		// eager: the join revokes all, then assigns again
		GroupChange{At: at(20100), Client: 0, Event: "revoked", Partitions: 3},
		GroupChange{At: at(20150), Client: 1, Event: "revoked", Partitions: 3},
		GroupChange{At: at(23000), Client: 0, Event: "assigned", Partitions: 2},
		GroupChange{At: at(23001), Client: 1, Event: "assigned", Partitions: 2},
		// the leave
		GroupChange{At: at(40500), Client: 0, Event: "revoked", Partitions: 2},
		GroupChange{At: at(40600), Client: 1, Event: "revoked", Partitions: 2},
		GroupChange{At: at(43500), Client: 0, Event: "assigned", Partitions: 3},
		GroupChange{At: at(43600), Client: 1, Event: "assigned", Partitions: 3},
		GroupChange{At: at(60000), Client: 0, Event: "left"},
		GroupChange{At: at(60001), Client: 1, Event: "left"})
	late := reader("late", "g",
		GroupChange{At: at(20000), Client: 0, Event: "joined"},
		GroupChange{At: at(23002), Client: 0, Event: "assigned", Partitions: 2},
		GroupChange{At: at(40000), Client: 0, Event: "left"})
	other := reader("other", "h",
		GroupChange{At: at(0), Client: 0, Event: "joined"},
		GroupChange{At: at(100), Client: 0, Event: "assigned", Partitions: 1},
		GroupChange{At: at(50000), Client: 0, Event: "left"})
	// KIP-848: only the moving partitions are revoked, and the newcomer
	// gets them at its next heartbeat.
	incBase := reader("base", "g",
		GroupChange{At: at(0), Client: 0, Event: "joined"},
		GroupChange{At: at(5000), Client: 0, Event: "assigned", Partitions: 6},
		GroupChange{At: at(20100), Client: 0, Event: "revoked", Partitions: 2},
		GroupChange{At: at(40100), Client: 0, Event: "assigned", Partitions: 2},
		GroupChange{At: at(60000), Client: 0, Event: "left"})
	incLate := reader("late", "g",
		GroupChange{At: at(20000), Client: 0, Event: "joined"},
		GroupChange{At: at(25000), Client: 0, Event: "assigned", Partitions: 2},
		GroupChange{At: at(40000), Client: 0, Event: "left"})
	writer := Workload{Name: "writer", Type: "produce", Producer: &Producer{}}
	for _, tt := range []struct {
		name string
		ws   []Workload
		want []Settling
	}{
		{"join and leave", []Workload{writer, base, late, other}, []Settling{
			// all 6 unowned from the first revocation (20.1 s) to the
			// late member's assignment (23.002 s)
			{Group: "g", Change: "late joined", At: at(20000), SettledMs: 3002, Moves: 5, UnownedMs: 2902},
			// the leave gives up late's 2 at once, until 43.6 s
			{Group: "g", Change: "late left", At: at(40000), SettledMs: 3600, Moves: 4, UnownedMs: 3600},
		}},
		{"incremental", []Workload{incBase, incLate}, []Settling{
			{Group: "g", Change: "late joined", At: at(20000), SettledMs: 5000, Moves: 2, UnownedMs: 4900},
			{Group: "g", Change: "late left", At: at(40000), SettledMs: 100, Moves: 1, UnownedMs: 100},
		}},
		{"no one joins", []Workload{base, other}, []Settling{
			// without the late member's own events, base's moves at 20 s
			// follow no membership change of the workloads given
		}},
		{"no groups", []Workload{writer}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := GroupSettling(tt.ws)
			if len(got) != len(tt.want) {
				t.Fatalf("settling %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("settling %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
