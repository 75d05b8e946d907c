package main

import (
	"slices"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// TestClusterBrokerCommands: the `kbench cluster NAME --broker N`
// commands are the fault kinds with a Manual, and each ends with the line
// it printed when the commands were spelled out here, one by one.
func TestClusterBrokerCommands(t *testing.T) {
	t.Parallel()
	var names []string
	lines := map[string]string{}
	for _, k := range brokerKinds() {
		names = append(names, k.Name)
		lines[k.Name] = brokerDone(k.Manual, "dev", 2, 41, 2340*time.Millisecond)
	}
	if want := []string{faults.Kill, faults.Pause, faults.Restart, faults.Resume, faults.Stop}; !slices.Equal(names, want) {
		t.Errorf("commands %v, want %v", names, want)
	}
	want := map[string]string{
		faults.Kill:    "broker 2 killed (pid 41); start it again with: kbench cluster restart --name dev --broker 2",
		faults.Stop:    "broker 2 stopped (pid 41); start it again with: kbench cluster restart --name dev --broker 2",
		faults.Pause:   "broker 2 paused (pid 41); resume it with: kbench cluster resume --name dev --broker 2",
		faults.Resume:  "broker 2 resumed (pid 41)",
		faults.Restart: "broker 2 restarted (pid 41) in 2.3s",
	}
	for name, line := range want {
		if lines[name] != line {
			t.Errorf("%s: %q\nwant %q", name, lines[name], line)
		}
	}
}
