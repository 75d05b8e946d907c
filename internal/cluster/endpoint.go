package cluster

import (
	"fmt"
	"strconv"
	"strings"
)

// Endpoint is one side of a Link: the clients, brokers, controllers, or a
// set of them (And). On a local cluster every node is a broker and a
// controller at once: Brokers(2) is node 2's broker (its replication and
// client listeners, and the connections it opens as a broker),
// Controllers(2) its controller (the quorum listener), Nodes(2) both.
type Endpoint struct {
	clients     bool
	brokers     uint16 // bit i: node id i
	controllers uint16
	// everyBroker and everyController stand for every node of the
	// cluster, whatever its size.
	everyBroker, everyController bool
	bad                          []int // ids out of range, reported by Link
}

// Clients is every client of the cluster: whatever connects to a broker's
// client address (kbench's workloads, the Java tools).
func Clients() Endpoint { return Endpoint{clients: true} }

// Brokers is the brokers with these node ids.
func Brokers(ids ...int) Endpoint {
	var e Endpoint
	e.brokers = e.set(ids)
	return e
}

// Controllers is the KRaft controllers with these node ids.
func Controllers(ids ...int) Endpoint {
	var e Endpoint
	e.controllers = e.set(ids)
	return e
}

// Nodes is the brokers and controllers with these node ids.
func Nodes(ids ...int) Endpoint { return Brokers(ids...).And(Controllers(ids...)) }

// AllBrokers is every broker of the cluster.
func AllBrokers() Endpoint { return Endpoint{everyBroker: true} }

// AllControllers is every controller of the cluster: the quorum.
func AllControllers() Endpoint { return Endpoint{everyController: true} }

// AllNodes is every broker and controller of the cluster.
func AllNodes() Endpoint { return AllBrokers().And(AllControllers()) }

// And is the union of e and o.
func (e Endpoint) And(o Endpoint) Endpoint {
	u := Endpoint{
		clients: e.clients || o.clients, brokers: e.brokers | o.brokers, controllers: e.controllers | o.controllers,
		everyBroker: e.everyBroker || o.everyBroker, everyController: e.everyController || o.everyController,
		bad: append(append([]int(nil), e.bad...), o.bad...),
	}
	return u
}

func (e *Endpoint) set(ids []int) uint16 {
	var s uint16
	for _, id := range ids {
		if id < 1 || id > MaxBrokers {
			e.bad = append(e.bad, id)
			continue
		}
		s |= 1 << id
	}
	return s
}

func (e Endpoint) hasBroker(id int) bool { return e.everyBroker || e.brokers&(1<<id) != 0 }

func (e Endpoint) hasController(id int) bool {
	return e.everyController || e.controllers&(1<<id) != 0
}

func (e Endpoint) empty() bool {
	return !e.clients && e.brokers == 0 && e.controllers == 0 && !e.everyBroker && !e.everyController
}

// opens says whether e opens p's connections: the clients reach client
// listeners; a node's broker reaches other brokers' replication listeners;
// a node (its broker or its controller: one process) reaches other
// controllers.
func (e Endpoint) opens(p Proxy) bool {
	switch p.Listener {
	case ListenerClient:
		return e.clients
	case ListenerInternal:
		return e.hasBroker(p.From)
	}
	return e.hasBroker(p.From) || e.hasController(p.From)
}

// serves says whether p leads to one of e's listeners.
func (e Endpoint) serves(p Proxy) bool {
	if p.Listener == ListenerController {
		return e.hasController(p.To)
	}
	return e.hasBroker(p.To)
}

// String names the endpoint as a user would: "the clients", "broker 1",
// "brokers 2, 3", "node 1" (its broker and controller), "every broker".
func (e Endpoint) String() string {
	var parts []string
	if e.clients {
		parts = append(parts, "the clients")
	}
	switch {
	case e.everyBroker && e.everyController:
		parts = append(parts, "every node")
	case e.everyBroker:
		parts = append(parts, "every broker")
	case e.everyController:
		parts = append(parts, "every controller")
	}
	both := e.brokers & e.controllers
	if e.everyBroker || e.everyController {
		both = 0
	}
	add := func(one, many string, set uint16) {
		var ids []string
		for id := 1; id <= MaxBrokers; id++ {
			if set&(1<<id) != 0 {
				ids = append(ids, strconv.Itoa(id))
			}
		}
		switch len(ids) {
		case 0:
		case 1:
			parts = append(parts, one+" "+ids[0])
		default:
			parts = append(parts, many+" "+strings.Join(ids, ", "))
		}
	}
	add("node", "nodes", both)
	if !e.everyBroker {
		add("broker", "brokers", e.brokers&^both)
	}
	if !e.everyController {
		add("controller", "controllers", e.controllers&^both)
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// check says what is wrong with e on a cluster of nodes 1 to n.
func (e Endpoint) check(name string, n int) error {
	if len(e.bad) > 0 {
		return fmt.Errorf("no node %d: cluster %q has nodes 1 to %d", e.bad[0], name, n)
	}
	if e.empty() {
		return fmt.Errorf("an endpoint names nothing: give the clients, node ids, or every broker or controller")
	}
	for id := n + 1; id <= MaxBrokers; id++ {
		if e.brokers&(1<<id) != 0 || e.controllers&(1<<id) != 0 {
			return fmt.Errorf("no node %d: cluster %q has nodes 1 to %d", id, name, n)
		}
	}
	return nil
}
