package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
)

// firstErrors returns a workload's OnError callback that prints the first
// error of each kind once per run, as "kbench: what: error". The workload
// calls it once per kind and client, from the clients' goroutines, so the
// guard is shared and locked (errors are rare: not the hot path).
func firstErrors(w io.Writer, what string) func(kind string, err error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(kind string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if seen[kind] {
			return
		}
		seen[kind] = true
		// A broker error's text holds its kind already
		// ("MESSAGE_TOO_LARGE: The request included ...").
		msg := err.Error()
		if !strings.Contains(msg, kind+": ") {
			msg = kind + ": " + msg
		}
		fmt.Fprintf(w, "kbench: %s: %s (further %s errors are counted, not printed)\n", what, msg, kind)
	}
}

// checkJSONPath proves --json's file writable before the run starts: a
// missing folder found only after the run would lose everything measured.
func checkJSONPath(path string) error {
	if path == "" {
		return nil
	}
	err := outfile.Check(path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, outfile.ErrFolder):
		return userr.Errorf("--json %s: is a folder; give a file name, such as %s", path, filepath.Join(path, "result.json"))
	default:
		return userr.Errorf("--json %s: cannot write there (%v); create the folder or pick another path", path, err)
	}
}

// stallPrinter says on stderr, as it happens, that no record is being
// acknowledged (the Apache lines on stdout only show 0 records sent).
func stallPrinter(w io.Writer) func(measure.Stall) {
	return func(s measure.Stall) {
		why := ""
		if s.LastError != "" {
			why = "; last error: " + s.LastError
		}
		noun := "records"
		if s.Outstanding == 1 {
			noun = "record"
		}
		fmt.Fprintf(w, "kbench: no acknowledgement for %s: %d %s outstanding%s\n", s.For.Round(100*time.Millisecond), s.Outstanding, noun, why)
	}
}

// printUnresolved reports records whose outcome is unknown: cancelled by
// Ctrl-C or the drain bound while the broker had not answered. Their wait
// is not in the latency figures, so it is said here.
func printUnresolved(w io.Writer, res *workload.ProducerResult) {
	if res.NotSent > 0 {
		fmt.Fprintf(w, "kbench: %d records not sent: the run ended before it sent them\n", res.NotSent)
	}
	if res.Unresolved == 0 {
		return
	}
	fmt.Fprintf(w, "kbench: %d records unresolved when the run ended (cancelled before an acknowledgement; the broker may have them); the oldest had waited %s, which the latency figures above leave out\n",
		res.Unresolved, res.UnresolvedWait.Round(time.Millisecond))
}
