package outfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockName is the lock file Lock keeps in a folder while it holds it; it
// holds the owner's process id.
const LockName = ".kbench.lock"

// BusyError is Lock's error for a folder another process holds.
type BusyError struct {
	Dir string
	PID int // 0 when the owner had not written it yet
}

func (e *BusyError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("%s is in use by another kbench run", e.Dir)
	}
	return fmt.Sprintf("%s is in use by another kbench run (process %d)", e.Dir, e.PID)
}

// Lock takes the folder dir for this process until unlock is called: a
// second Lock on it, from this process or another, fails with *BusyError.
// The lock is an flock(2) on dir/LockName, which the kernel drops when the
// process dies, so a crash leaves no stale lock; unlock removes the file.
func Lock(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockName)
	// Another process's unlock may remove the file between our open and our
	// flock: the lock is then on a file nobody else sees, so try again.
	for range 5 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			pid := readPID(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &BusyError{Dir: dir, PID: pid}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !samePath(f, path) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return func() {
			os.Remove(path) // while still locked, so nobody takes a file about to go
			f.Close()       // drops the lock
		}, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
}

func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// samePath reports whether the open file f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Held reports whether a live process holds dir's Lock: false when no lock
// file is there, or when one is but no process holds it (its owner died,
// kill -9, leaving the file). It creates and removes nothing.
func Held(dir string) bool {
	f, err := os.Open(filepath.Join(dir, LockName))
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// HolderPID is the process id written in dir's lock file (0 when there is
// none or it is not written yet); pair it with Held.
func HolderPID(dir string) int {
	f, err := os.Open(filepath.Join(dir, LockName))
	if err != nil {
		return 0
	}
	defer f.Close()
	return readPID(f)
}
