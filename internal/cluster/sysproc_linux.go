package cluster

import "syscall"

// sysProcAttr puts a broker in its own session, so that Ctrl-C in the
// terminal that ran `cluster up` does not reach it. With stopOnExit the
// kernel kills it when its parent exits. (Strictly: when the OS thread that
// started it exits; Go only ends threads of goroutines that exit while
// locked to them, which kbench never does.)
func sysProcAttr(stopOnExit bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	if stopOnExit {
		a.Pdeathsig = syscall.SIGKILL
	}
	return a
}
