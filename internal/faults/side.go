package faults

import (
	"slices"
	"strconv"
	"strings"
)

// Side is one end of a network fault's link as a plan writes it: nodes by
// target (a broker id, a partition's leader, the active controller, an
// earlier fault's broker), the plan's named zones, every broker, every
// controller (the quorum), the clients, or any union of them.
type Side struct {
	Targets     []Target
	Zones       []Zone
	Brokers     bool // every broker
	Controllers bool // every controller: the quorum
	Clients     bool // whatever connects to the brokers' client addresses
}

// Zone is a named set of nodes a plan declares once (network.zones) and
// its links name as one side: brokers by id, and the clients if they sit
// in it.
type Zone struct {
	Name    string
	Brokers []int32
	Clients bool
}

// Ends is the zone as a link's end: its brokers and its clients.
func (z Zone) Ends() Ends {
	return Ends{Nodes: slices.Clone(z.Brokers), Clients: z.Clients}
}

func (s Side) String() string {
	var parts []string
	for _, t := range s.Targets {
		parts = append(parts, t.String())
	}
	for _, z := range s.Zones {
		parts = append(parts, "zone "+z.Name)
	}
	if s.Brokers {
		parts = append(parts, "brokers")
	}
	if s.Controllers {
		parts = append(parts, "controllers")
	}
	if s.Clients {
		parts = append(parts, "clients")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "+")
}

// Ends is a Side resolved when its fault happens: the node ids its targets
// mean then. A node is a broker and a controller at once on a local
// cluster (one process): a network fault on it acts on both.
type Ends struct {
	Nodes                         []int32
	Brokers, Controllers, Clients bool
}

func (e Ends) String() string {
	var parts []string
	if len(e.Nodes) > 0 {
		ids := make([]string, len(e.Nodes))
		for i, n := range e.Nodes {
			ids[i] = strconv.Itoa(int(n))
		}
		word := "broker "
		if len(ids) > 1 {
			word = "brokers "
		}
		parts = append(parts, word+strings.Join(ids, ", "))
	}
	if e.Brokers {
		parts = append(parts, "every broker")
	}
	if e.Controllers {
		parts = append(parts, "every controller")
	}
	if e.Clients {
		parts = append(parts, "the clients")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// Link is the two ends a network fault acts between, resolved.
type Link [2]Ends

func (l Link) String() string { return l[0].String() + " ↔ " + l[1].String() }

// Carries reports whether any connection runs between a and b on a
// cluster of nodes 1 to n, each a broker and a controller: the clients
// reach brokers; a node reaches every other node's brokers and
// controllers. A node never reaches itself over the network, nor the
// clients each other.
func Carries(a, b Ends, n int) bool {
	if (a.Clients && b.nodes(n) > 0) || (b.Clients && a.nodes(n) > 0) {
		return true
	}
	for x := 1; x <= n; x++ {
		for y := 1; y <= n; y++ {
			if x != y && a.has(int32(x)) && b.has(int32(y)) {
				return true
			}
		}
	}
	return false
}

func (e Ends) has(id int32) bool {
	return e.Brokers || e.Controllers || slices.Contains(e.Nodes, id)
}

func (e Ends) nodes(n int) int {
	if e.Brokers || e.Controllers {
		return n
	}
	return len(e.Nodes)
}

// SameNode names the node both ends are when they are a single one and
// the same (a link between a broker and itself), or -1.
func SameNode(a, b Ends) int32 {
	if a.Brokers || a.Controllers || a.Clients || b.Brokers || b.Controllers || b.Clients {
		return -1
	}
	if len(a.Nodes) == 1 && len(b.Nodes) == 1 && a.Nodes[0] == b.Nodes[0] {
		return a.Nodes[0]
	}
	return -1
}

// Union is every node and group of e and o, each node once.
func (e Ends) Union(o Ends) Ends {
	u := Ends{Nodes: slices.Clone(e.Nodes), Brokers: e.Brokers || o.Brokers, Controllers: e.Controllers || o.Controllers, Clients: e.Clients || o.Clients}
	for _, n := range o.Nodes {
		if !slices.Contains(u.Nodes, n) {
			u.Nodes = append(u.Nodes, n)
		}
	}
	return u
}
