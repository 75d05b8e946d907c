package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// procState is what the OS says about a broker's PID.
type procState int

const (
	procGone    procState = iota // no process, a zombie, or someone else's process
	procRunning                  // our broker, running
	procStopped                  // our broker, stopped by SIGSTOP (Pause)
)

// inspect reports whether pid still runs the broker whose config file is
// config. Checking the command line, not just the PID, keeps a reused PID
// (another program, after a reboot) from ever being signalled.
func inspect(pid int, config string) procState {
	if pid <= 0 {
		return procGone
	}
	state, cmdline, err := procInfo(pid)
	// The broker command line ends with its config file (see command).
	if err != nil || config == "" || !runsConfig(pid, cmdline, config) {
		return procGone
	}
	return stateOf(state)
}

// runsConfig reports whether a command line ends with config, also as a
// path relative to the process's working directory (a broker started by
// hand from its node's folder).
func runsConfig(pid int, cmdline, config string) bool {
	if strings.HasSuffix(cmdline, " "+config) {
		return true
	}
	last := cmdline[strings.LastIndexByte(cmdline, ' ')+1:]
	if last == "" || filepath.IsAbs(last) || !strings.Contains(cmdline, " kafka.Kafka ") {
		return false
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	return err == nil && filepath.Join(cwd, last) == filepath.Clean(config)
}

// procInfo reads a process's state letter and command line (arguments
// joined by spaces) from /proc, or from ps where there is no /proc (macOS).
func procInfo(pid int) (byte, string, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	if _, err := os.Stat("/proc/self"); err != nil {
		return psInfo(pid)
	}
	cmdline, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		return 0, "", err
	}
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, "", err
	}
	return parseStat(stat), strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "), nil
}

// parseStat reads the state letter from /proc/PID/stat: "pid (comm) S ...",
// where comm may itself hold spaces and parentheses.
func parseStat(stat []byte) byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}

func psInfo(pid int) (byte, string, error) {
	out, err := exec.Command("ps", "-ww", "-o", "stat=,command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0, "", fmt.Errorf("ps %d: %w", pid, err)
	}
	stat, cmdline, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || stat == "" {
		return 0, "", errors.New("ps: no such process")
	}
	return stat[0], strings.TrimSpace(cmdline), nil
}

// signal sends sig to the broker if its PID is still that broker.
func signal(b Broker, sig syscall.Signal) error {
	if inspect(b.PID, b.ConfigPath) == procGone {
		return fmt.Errorf("broker %d (pid %d) is not running", b.ID, b.PID)
	}
	if err := syscall.Kill(b.PID, sig); err != nil {
		return fmt.Errorf("signal broker %d (pid %d) with %v: %w", b.ID, b.PID, sig, err)
	}
	return nil
}
