package faults

import "context"

// restart starts a broker again, stopping it first if it runs (a running
// broker's shutdown moves its leaders), and returns once it has joined.
var restart = Kind{
	Name:    Restart,
	Effect:  Effect{Away: true, Back: true},
	Command: Restart,
	Example: "kubectl wait --for=condition=Ready pod/kafka-{broker} --timeout=5m",
	Broker:  restartBroker,
	Manual: &Manual{Short: "Start a broker of a local cluster again (stopping it first if it runs), with its data, and wait until it has joined",
		Done: "restarted", Waiting: "restarting"},
}

func restartBroker(ctx context.Context, p Processes, id int) error { return p.Restart(ctx, id) }
