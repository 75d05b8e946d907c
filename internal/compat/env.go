package compat

import (
	"context"
	"io"
)

// Env is what a drop-in run takes from its process: the streams it prints
// to, the context a second Ctrl-C ends, and kbench's version.
type Env struct {
	Stdout, Stderr io.Writer
	// Abort, if set, is done on a second Ctrl-C: every wait ends at once
	// and what was measured is written.
	Abort   context.Context
	Version string
}
