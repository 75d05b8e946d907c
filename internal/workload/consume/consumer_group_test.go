package consume

import (
	"context"
	"testing"
	"time"
)

// TestGroupChanges: a consumer group's members log their joining, the
// partitions assigned to them and their leaving, in time order, with
// the partitions summing to the topic's; clients without a group log
// nothing.
func TestGroupChanges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		spec    ConsumerSpec
		clients int
	}{
		{"group of two", ConsumerSpec{Group: "g", Clients: 2, Records: 300}, 2},
		{"assigned directly", ConsumerSpec{Clients: 2, Records: 300}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addrs := consFakeCluster(t, "t", 4, 300)
			spec := tt.spec
			spec.Topics = []string{"t"}
			spec.ClientOpts = consFakeOpts(addrs)
			spec.IdleTimeout = 2 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunConsumer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if tt.clients == 0 {
				if len(res.GroupChanges) != 0 {
					t.Errorf("changes %+v, want none without a group", res.GroupChanges)
				}
				return
			}
			joined, left := map[int]bool{}, map[int]bool{}
			assigned := 0
			for i, c := range res.GroupChanges {
				if i > 0 && c.At.Before(res.GroupChanges[i-1].At) {
					t.Errorf("change %d at %v before the one before it", i, c.At)
				}
				switch c.Event {
				case "joined":
					joined[c.Client] = true
				case "left":
					left[c.Client] = true
				case "assigned":
					if c.Partitions <= 0 || !joined[c.Client] || left[c.Client] {
						t.Errorf("change %+v: an assignment of no partition, or outside the member's time in the group", c)
					}
					assigned += c.Partitions
				case "revoked", "lost":
					assigned -= c.Partitions
				default:
					t.Errorf("change %+v: unknown event", c)
				}
			}
			if len(joined) != tt.clients || len(left) != tt.clients || assigned != 4 {
				t.Errorf("%d joined, %d left, %d partitions held at the end; want %d, %d, 4: %+v", len(joined), len(left), assigned, tt.clients, tt.clients, res.GroupChanges)
			}
		})
	}
}
