package faults

import (
	"fmt"
	"strconv"
	"time"
)

// Fault is one action of the timeline.
type Fault struct {
	Name string
	// Action names the fault's Kind (Kinds).
	Action string
	Target Target
	// At is the time from the workloads' start (runner's OnStart, just before the first send); with After, the delay
	// after the named fault was done.
	At    time.Duration
	After string
	// Params are the kind's parameters as the plan gave them (a bounce's
	// times); the timeline fills in the defaults of the others.
	Params Params
	// Between, for a network kind, are the link's two ends; Target is then
	// the first end's first target (the broker the result names).
	Between []Side
}

// Target says which broker a fault acts on; exactly one field is set.
type Target struct {
	Broker     int32 // a node id (> 0 locally)
	Leader     *Partition
	Controller bool   // the active KRaft controller
	Fault      string // the broker an earlier fault acted on
	// Clients, for a network kind, is the clients' side of every broker.
	Clients bool
}

func (t Target) String() string {
	switch {
	case t.Leader != nil:
		return fmt.Sprintf("leader of %s-%d", t.Leader.Topic, t.Leader.Partition)
	case t.Controller:
		return "controller"
	case t.Fault != "":
		return "broker of " + t.Fault
	case t.Clients:
		return "clients"
	}
	return "broker " + strconv.Itoa(int(t.Broker))
}

// Partition names a topic partition.
type Partition struct {
	Topic     string
	Partition int32
}

// TargetString names what the fault acts on: its target, or for a
// network fault its link ("leader of t-0 ↔ brokers+controllers").
func (f Fault) TargetString() string {
	if len(f.Between) == 2 {
		return f.Between[0].String() + " ↔ " + f.Between[1].String()
	}
	return f.Target.String()
}
