package faults

import "context"

// kill crashes a broker (SIGKILL locally): it is down until an action
// brings it back, and keeps its partitions until the controller fences it.
var kill = Kind{
	Name:    Kill,
	Effect:  Effect{Away: true, Down: true},
	Command: Kill,
	Example: "kubectl delete pod kafka-{broker} --grace-period=0 --force",
	Broker:  func(_ context.Context, p Processes, id int) error { return p.Kill(id) },
	Manual: &Manual{Short: "Kill a broker of a local cluster (SIGKILL: a crash)",
		Done: "killed", Undo: Restart, UndoSays: "start it again"},
}
