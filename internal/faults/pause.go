package faults

import "context"

// pause hangs a broker (SIGSTOP locally): the controller fences it once its
// session expires, unless a resume comes first.
var pause = Kind{
	Name:    Pause,
	Effect:  Effect{Away: true, Down: true},
	Command: Pause,
	Example: `ssh kafka-{broker} "sudo pkill -STOP -f kafka.Kafka"`,
	Broker:  func(_ context.Context, p Processes, id int) error { return p.Pause(id) },
	Manual: &Manual{Short: "Pause a broker of a local cluster (SIGSTOP: a hung process)",
		Done: "paused", Undo: Resume, UndoSays: "resume it"},
}
