package compat

import (
	"context"
	"io"

	"github.com/kbench/kbench/internal/runner"
)

// Env is what a drop-in run takes from its process: the streams it prints
// to, the context a second Ctrl-C ends, kbench's version, and the engine
// that runs its scenario.
type Env struct {
	Stdout, Stderr io.Writer
	// Abort, if set, is done on a second Ctrl-C: every wait ends at once
	// and what was measured is written.
	Abort   context.Context
	Version string
	// Run runs the drop-in's scenario (nil: runner.Run); tests hand it
	// canned outcomes to check the lines, documents and exit codes.
	Run runner.RunFunc
}

// asRecorded is the error a drop-in's result document records: a run that
// Ctrl-C ended (ctx done) was interrupted, whatever else its records'
// failures say (the records cancelled by the interrupt fail too; the
// document keeps their counts), so the document says interrupted, as the
// exit code 130 does.
func asRecorded(ctx context.Context, runErr error) error {
	if runErr != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return runErr
}
