package timeline

import (
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// Result statuses.
const (
	StatusDone       = "done"
	StatusFailed     = "failed"      // the action failed, or could not happen (Error says why)
	StatusSkipped    = "skipped"     // the fault it follows failed
	StatusNotReached = "not reached" // sending ended before its time (Note says when)
)

// Result is what one fault did and what was measured.
type Result struct {
	Name, Action, Target string
	Broker               int32         // -1 when the target could not be resolved
	At                   time.Duration // since the workloads' start, when the action began
	// Fired is when the fault fired, before resolving its target and the
	// leaders it takes away (metadata round trips): At less Fired is what
	// they took.
	Fired time.Duration
	Took  time.Duration // the action itself (a restart waits for the broker)
	// Gaps says the acknowledgement gaps that began during the action are
	// the fault's (its unavailability): it took its broker away, or
	// disrupted it in a way that can hold requests back (a loss, a cut from
	// the clients); not an action that only slows (its kind's Effect).
	Gaps bool
	// Affected are the partitions the broker led when the fault began.
	Affected []Moved
	// Replicas is how many partition replicas the broker held when the
	// fault began, every topic counted (0: not known), PlanReplicas how
	// many of them were the scenario's topics': partitions other runs left
	// recover too, and their count is in the figures measured.
	Replicas, PlanReplicas int
	// Cut says, for a network partition of one broker, what it was cut
	// from: CutQuorum (the other nodes or the controllers: the controller
	// can no longer hear it) or CutBrokers (the other brokers only: its
	// controller sessions go on); empty for any other fault.
	Cut string
	// Election is the time from the action until every affected
	// partition had a leader on another broker; ISRRecovered, for an action
	// that brings a broker back, until every partition's ISR was full. Nil
	// when not measured (the action does neither, or the broker led
	// nothing) or not seen; the TimedOut flags say measuring gave up first.
	Election, ISRRecovered *time.Duration
	// ISRShrunk, for an action that takes its broker away or disrupts it,
	// is the time until a partition it replicates dropped it from its
	// in-sync replicas; nil when that did not happen before the timeline
	// ended.
	ISRShrunk                              *time.Duration
	ElectionTimedOut, ISRRecoveredTimedOut bool
	// ElectionNote and ISRNote say what happened instead, or besides, in
	// words: "not within 120 s", "t-1 has no other replica and came back
	// with broker 2 after 25.3 s".
	ElectionNote, ISRNote string
	// Note says why a fault did not happen (not reached, skipped).
	Note   string
	Output string
	Status string
	Error  string
}

// What a partition cut a broker off from (Result.Cut).
const (
	CutQuorum  = "quorum"
	CutBrokers = "brokers"
)

// Moved is a partition whose leader the fault took away.
type Moved struct {
	Topic     string
	Partition int32
	// To is the new leader, -1 until one was seen; To == From when the
	// partition had no other in-sync replica and came back with its broker.
	From, To int32
}

// resultLabel names r in log lines.
func resultLabel(r Result) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Action + " " + r.Target
}

// label names fault f in log lines.
func label(f faults.Fault) string {
	if f.Name != "" {
		return f.Name
	}
	return f.Action + " " + f.TargetString()
}
