package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLock: a held folder is refused with the holder's pid; unlock removes
// the lock file and frees the folder; a lock file left by a process that
// died (no flock held) does not block.
func TestLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Fatalf("second lock: %v, want BusyError with pid %d", err, os.Getpid())
	}
	unlock()
	if _, err := os.Stat(filepath.Join(dir, LockName)); !os.IsNotExist(err) {
		t.Fatalf("unlock left the lock file: %v", err)
	}
	// A crashed run's file: present, but no process holds its flock.
	if err := os.WriteFile(filepath.Join(dir, LockName), []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err = Lock(dir)
	if err != nil {
		t.Fatalf("lock over a stale lock file: %v", err)
	}
	unlock()
}
