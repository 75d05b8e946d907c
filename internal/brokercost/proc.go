package brokercost

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux architecture kbench runs on (the kernel fixes it for userspace).
const clockTicks = 100

// procSample is one reading of a process's counters.
type procSample struct {
	pid              int
	userTicks        int64
	systemTicks      int64
	rssBytes         int64
	readBytes        int64 // storage reads (/proc/PID/io read_bytes)
	writeBytes       int64 // storage writes, page-cache writeback included
	ioKnown, rssKnow bool
}

// readProc reads pid's counters under root (normally "/proc").
func readProc(root string, pid int) (procSample, error) {
	s := procSample{pid: pid}
	dir := filepath.Join(root, strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return s, err
	}
	// The command name is in parentheses and may hold spaces or ')':
	// the fields that follow the last ')' are fixed.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return s, fmt.Errorf("%s/stat: no command name", dir)
	}
	f := strings.Fields(string(stat[end+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return s, fmt.Errorf("%s/stat: %d fields after the command name, want 13 or more", dir, len(f))
	}
	if s.userTicks, err = strconv.ParseInt(f[11], 10, 64); err != nil {
		return s, fmt.Errorf("%s/stat utime: %w", dir, err)
	}
	if s.systemTicks, err = strconv.ParseInt(f[12], 10, 64); err != nil {
		return s, fmt.Errorf("%s/stat stime: %w", dir, err)
	}
	if v, ok := field(filepath.Join(dir, "status"), "VmRSS:"); ok {
		s.rssBytes, s.rssKnow = v*1024, true // kB
	}
	r, okR := field(filepath.Join(dir, "io"), "read_bytes:")
	w, okW := field(filepath.Join(dir, "io"), "write_bytes:")
	s.readBytes, s.writeBytes, s.ioKnown = r, w, okR && okW
	return s, nil
}

// field returns the number after name in a "name: value" file.
func field(path, name string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, name); ok {
			parts := strings.Fields(rest)
			if len(parts) == 0 {
				return 0, false
			}
			v, err := strconv.ParseInt(parts[0], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
