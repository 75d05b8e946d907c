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
}

// Target says which broker a fault acts on; exactly one field is set.
type Target struct {
	Broker     int32 // a node id (> 0 locally)
	Leader     *Partition
	Controller bool   // the active KRaft controller
	Fault      string // the broker an earlier fault acted on
}

func (t Target) String() string {
	switch {
	case t.Leader != nil:
		return fmt.Sprintf("leader of %s-%d", t.Leader.Topic, t.Leader.Partition)
	case t.Controller:
		return "controller"
	case t.Fault != "":
		return "broker of " + t.Fault
	}
	return "broker " + strconv.Itoa(int(t.Broker))
}

// Partition names a topic partition.
type Partition struct {
	Topic     string
	Partition int32
}

func label(f Fault) string {
	if f.Name != "" {
		return f.Name
	}
	return f.Action + " " + f.Target.String()
}
