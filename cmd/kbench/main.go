// Command kbench is a load-testing and benchmarking toolkit for Apache Kafka.
// See README.md for usage; this file only wires process state to run.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kbench/kbench/internal/gctune"
	"github.com/kbench/kbench/internal/wallclock"
)

// abortGrace is how long kbench takes, after a second Ctrl-C, to write what
// it measured before it exits anyway.
const abortGrace = 3 * time.Second

func main() {
	if _, ours := gcPercent(os.Getenv); ours {
		gctune.Start(context.Background())
	}
	if err := wallclock.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "kbench: %v\n", err)
		os.Exit(exitUsage)
	}
	st := newProcessState()
	ctx, interrupt := context.WithCancel(context.Background())
	abort, stopWaits := context.WithCancel(context.Background())
	st.abort = abort
	// The first signal cancels the run, which stops sending, waits a
	// bounded moment for what is in flight and writes what it measured.
	// The second ends every wait at once: what was measured is written and
	// kbench exits (130), within abortGrace whatever it was doing. The
	// default action, restored then, lets a third end the process at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		interrupt()
		<-sigs
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		stopWaits()
		time.AfterFunc(abortGrace, func() {
			st.exitForced() // says what was not written
			os.Exit(exitInterrupted)
		})
	}()
	code := run(ctx, os.Args, st)
	signal.Stop(sigs)
	os.Exit(code)
}
