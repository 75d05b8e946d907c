package cluster

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// brokerProc is a process found running a broker's config.
type brokerProc struct {
	pid   int
	state procState
}

// findBrokers lists the processes that run a broker with one of configs
// (`kafka.Kafka <config>`, a relative config resolved against the
// process's working directory), by config: whatever PIDs the state
// recorded. A broker restarted by hand, or by another kbench whose state
// was written over, is still found. Zombies are not.
func findBrokers(configs ...string) map[string][]brokerProc {
	want := map[string]bool{}
	for _, c := range configs {
		if c != "" {
			want[filepath.Clean(c)] = true
		}
	}
	out := map[string][]brokerProc{}
	if len(want) == 0 {
		return out
	}
	if runtime.GOOS != "linux" {
		return findBrokersPS(want)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return findBrokersPS(want)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := "/proc/" + e.Name()
		raw, err := os.ReadFile(dir + "/cmdline")
		if err != nil || !bytes.Contains(raw, []byte("kafka.Kafka\x00")) {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		config := args[len(args)-1]
		if !filepath.IsAbs(config) {
			cwd, err := os.Readlink(dir + "/cwd")
			if err != nil {
				continue
			}
			config = filepath.Join(cwd, config)
		}
		config = filepath.Clean(config)
		if !want[config] {
			continue
		}
		stat, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		if st := stateOf(parseStat(stat)); st != procGone {
			out[config] = append(out[config], brokerProc{pid, st})
		}
	}
	return out
}

// findBrokersPS is findBrokers where there is no /proc (macOS): only
// absolute config paths are recognised.
func findBrokersPS(want map[string]bool) map[string][]brokerProc {
	out := map[string][]brokerProc{}
	raw, err := exec.Command("ps", "-axww", "-o", "pid=,stat=,command=").Output()
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.Contains(line, " kafka.Kafka ") {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		config := filepath.Clean(f[len(f)-1])
		if err != nil || pid == os.Getpid() || !want[config] {
			continue
		}
		if st := stateOf(f[1][0]); st != procGone {
			out[config] = append(out[config], brokerProc{pid, st})
		}
	}
	return out
}

// stateOf reads a process state letter.
func stateOf(letter byte) procState {
	switch letter {
	case 'Z', 'X', 'x', 0:
		return procGone
	case 'T', 't':
		return procStopped
	}
	return procRunning
}
