package measure

import (
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
