package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kbench/kbench/internal/userr"
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
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return userr.Errorf("--json %s: is a folder; give a file name, such as %s", path, filepath.Join(path, "result.json"))
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".kbench-json-check-*")
	if err != nil {
		return userr.Errorf("--json %s: cannot write there (%v); create the folder or pick another path", path, unwrapPathErr(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwrapPathErr drops the temporary file's name from a path error.
func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
