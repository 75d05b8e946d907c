//go:build !linux

package cluster

import "syscall"

// sysProcAttr puts a broker in its own session, so that Ctrl-C in the
// terminal that ran `cluster up` does not reach it. stopOnExit needs Linux's
// parent-death signal and is ignored here.
func sysProcAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
