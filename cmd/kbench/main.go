// Command kbench is a load-testing and benchmarking toolkit for Apache Kafka.
// See README.md for usage; this file only wires process state to run.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	if percent, ok := gcPercent(os.Getenv); ok {
		debug.SetGCPercent(percent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels the run, which then writes what it measured;
	// restoring the default action lets a second one end the process at
	// once (the shell reports 130 for SIGINT).
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args, newProcessState())
	stop()
	os.Exit(code)
}
