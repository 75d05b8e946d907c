package result

import (
	"slices"
	"strings"
	"time"
)

// Settling is how long a consumer group took to settle after members
// joined or left while it ran: from the membership change to the last
// assignment change (assigned, revoked, lost) of any member before the
// next membership change. It is read from the members' group_changes, so
// a reader can check it against them.
type Settling struct {
	Group string `json:"group"`
	// Change says who joined or left ("late joined", "late left").
	Change string    `json:"change"`
	At     time.Time `json:"at"`
	// SettledMs is from At to the last assignment change after it;
	// Moves counts the assignment changes (each member's assigned,
	// revoked or lost partitions) in between.
	SettledMs float64 `json:"settled_ms"`
	Moves     int     `json:"moves"`
	// UnownedMs is the longest time in between that the group's members
	// owned fewer partitions than before the change: some partition had
	// no member to read it (a member that left gives up its partitions
	// when it leaves).
	UnownedMs float64 `json:"unowned_ms"`
}

// GroupSettling reads each consumer group's membership changes in the
// workloads of one repeat (workloads in one group: the same group.id in
// their config): a member joining a group already assigned partitions, or
// leaving one, and how long the group took to settle after it. Several
// members joining or leaving with no assignment change between them are
// one change. The group's own start and end (no assignment yet, or no
// assignment change after the leaves) are not changes.
func GroupSettling(ws []Workload) []Settling {
	type change struct {
		GroupChange
		workload string
	}
	byGroup := map[string][]change{}
	var groups []string
	for _, w := range ws {
		g := w.Config["group.id"]
		if g == "" || w.Consumer == nil || len(w.Consumer.GroupChanges) == 0 {
			continue
		}
		if _, seen := byGroup[g]; !seen {
			groups = append(groups, g)
		}
		for _, c := range w.Consumer.GroupChanges {
			byGroup[g] = append(byGroup[g], change{c, w.Name})
		}
	}
	var out []Settling
	for _, g := range groups {
		cs := byGroup[g]
		slices.SortStableFunc(cs, func(a, b change) int { return a.At.Compare(b.At) })
		assignedYet := false
		var open *Settling
		var who []string
		// owned is each member's partitions, total their sum; full is
		// the total before the open change, short when it fell under.
		type member struct {
			workload string
			client   int
		}
		owned, total, full := map[member]int{}, 0, 0
		var short time.Time
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		closeOpen := func() {
			if open != nil && open.Moves > 0 {
				open.Change = strings.Join(who, ", ")
				out = append(out, *open)
			}
			open, who = nil, nil
		}
		for _, c := range cs {
			m := member{c.workload, c.Client}
			switch c.Event {
			case "joined", "left":
				if open != nil && open.Moves > 0 {
					closeOpen()
				}
				if open == nil {
					full, short = total, time.Time{}
				}
				if c.Event == "left" {
					total -= owned[m]
					owned[m] = 0
				}
				if !assignedYet {
					continue // the group's own start
				}
				if open == nil {
					open = &Settling{Group: g, At: c.At}
				}
				if w := c.workload + " " + c.Event; !slices.Contains(who, w) {
					who = append(who, w)
				}
			case "assigned":
				assignedYet = true
				owned[m] += c.Partitions
				total += c.Partitions
			default: // revoked, lost
				owned[m] = max(owned[m]-c.Partitions, 0)
				total = max(total-c.Partitions, 0)
			}
			if open == nil {
				continue
			}
			if c.Event != "joined" && c.Event != "left" {
				open.Moves++
				open.SettledMs = ms(c.At.Sub(open.At))
			}
			switch {
			case total < full && short.IsZero():
				short = c.At
			case total >= full && !short.IsZero():
				open.UnownedMs = max(open.UnownedMs, ms(c.At.Sub(short)))
				short = time.Time{}
			}
		}
		closeOpen()
	}
	return out
}
