package faults

import "context"

// stop shuts a broker down cleanly (SIGTERM locally, SIGKILL after 30 s):
// its leaders move before it exits, and it is down until an action brings
// it back.
var stop = Kind{
	Name:    Stop,
	Effect:  Effect{Away: true, Down: true},
	Command: Stop,
	Example: "kubectl delete pod kafka-{broker}",
	Broker:  func(ctx context.Context, p Processes, id int) error { return p.StopBroker(ctx, id) },
	Manual: &Manual{Short: "Stop a broker of a local cluster cleanly (SIGTERM; SIGKILL after 30 s)",
		Done: "stopped", Undo: Restart, UndoSays: "start it again"},
}
