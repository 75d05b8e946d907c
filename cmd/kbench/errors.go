package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
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
