package faults

import "context"

// resume continues a paused broker (SIGCONT locally): the same process goes
// on, keeping the partitions the cluster had not moved yet.
var resume = Kind{
	Name:    Resume,
	Effect:  Effect{Back: true, Continues: true},
	Command: Resume,
	Example: `ssh kafka-{broker} "sudo pkill -CONT -f kafka.Kafka"`,
	Broker:  func(_ context.Context, p Processes, id int) error { return p.Resume(id) },
	Manual:  &Manual{Short: "Resume a paused broker of a local cluster (SIGCONT)", Done: "resumed"},
}
