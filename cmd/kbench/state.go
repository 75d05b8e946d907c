package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/compat"
	"github.com/kbench/kbench/internal/gctune"
	"github.com/kbench/kbench/internal/runner"
)

// state is everything kbench takes from its process: streams, environment
// and directories. Tests build their own, so they run the real commands.
type state struct {
	stdout io.Writer
	stderr io.Writer
	// abort, if set, is done on a second Ctrl-C: every wait ends at once
	// and what was measured is written (nil in tests that do not use it).
	abort  context.Context
	getenv func(string) string
	// cacheDir holds downloaded Kafka jars and local clusters' data.
	cacheDir string
	// stateDir, when set, holds local clusters' state and data instead of
	// clusters/ under cacheDir (tests use a temp dir but share the jars).
	stateDir string
	// keepPlanCluster, if set, is given the local cluster a plan starts
	// and stops it itself (tests read its topics after the run).
	keepPlanCluster func(*cluster.Cluster)
	// runScenario runs each scenario of a drop-in or a plan (nil:
	// runner.Run): tests of what kbench prints, writes and exits with
	// hand it canned outcomes.
	runScenario runner.RunFunc
	// forcedExit, if set, is called when kbench must exit before the
	// command ended (its wind-down outlasted the grace after a second
	// Ctrl-C): what it says instead of the results it could not write.
	forcedExit atomic.Pointer[func()]
}

// onForcedExit sets what a forced exit says (nil: nothing).
func (st *state) onForcedExit(fn func()) {
	if fn == nil {
		st.forcedExit.Store(nil)
		return
	}
	st.forcedExit.Store(&fn)
}

// exitForced runs the forced exit's function, if any.
func (st *state) exitForced() {
	if fn := st.forcedExit.Load(); fn != nil {
		(*fn)()
	}
}

func newProcessState() *state {
	return &state{
		stdout:   os.Stdout,
		stderr:   os.Stderr,
		getenv:   os.Getenv,
		cacheDir: defaultCacheDir(os.Getenv),
	}
}

// defaultCacheDir is $KBENCH_HOME when set, else kbench/ under the user's
// cache directory (~/.cache/kbench on Linux).
func defaultCacheDir(getenv func(string) string) string {
	if d := getenv("KBENCH_HOME"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "kbench")
	}
	return filepath.Join(os.TempDir(), "kbench")
}

// benchGCPercent is the GOGC kbench starts with when $GOGC is not set,
// tuned from there by what collecting costs (internal/gctune). It is set
// once per process (in main), not per workload: the GC setting is
// process-wide, so workloads running side by side must not each change it
// and restore it under the others.
const benchGCPercent = gctune.High

// gcPercent returns the GC percent main starts with, and false when the
// user chose one with $GOGC (which the Go runtime has applied already).
func gcPercent(getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return benchGCPercent, true
}

// env is what a drop-in run takes from the process (compat.Env).
func (st *state) env() compat.Env {
	return compat.Env{Stdout: st.stdout, Stderr: st.stderr, Abort: st.abort, Version: version, Run: st.runScenario}
}
