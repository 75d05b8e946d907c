package measure

import (
	"runtime"
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user + system) this process has used so
// far, so a run can report client CPU per record: on a machine where broker
// and client share cores, throughput alone hides what the client costs.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxRSS is getrusage's maximum resident set size in bytes: kilobytes on
// Linux and most systems, bytes on macOS.
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
