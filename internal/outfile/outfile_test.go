package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mknod makes a character device node under dir (the test's own, never a
// system one) and skips the test where that is not permitted.
func mknod(t *testing.T, dir, name string, major, minor uint32) string {
	t.Helper()
	path := filepath.Join(dir, name)
	dev := int((major << 8) | minor) // Linux's old encoding, enough for (1, 3) and (1, 7)
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, dev); err != nil {
		t.Skipf("cannot make a device node (%v): mknod needs root or CAP_MKNOD", err)
	}
	return path
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func lmode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteRegularAndLinks: a regular file is replaced keeping its mode; a
// symlink (absolute, relative, chained, dangling) stays a link and its
// target is written.
func TestWriteRegularAndLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string) (path, written string)
		mode   fs.FileMode // of the written file, 0 to skip
		isLink bool        // path must still be a symlink
	}{
		{"new file", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "new.json")
			return p, p
		}, 0, false},
		{"existing file keeps its mode", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "old.json")
			if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			return p, p
		}, 0o600, false},
		{"absolute symlink", func(t *testing.T, dir string) (string, string) {
			target := filepath.Join(dir, "target.json")
			if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link.json")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link, target
		}, 0o644, true},
		{"relative chain into another folder", func(t *testing.T, dir string) (string, string) {
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("sub/target.json", filepath.Join(dir, "mid.json")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("mid.json", filepath.Join(dir, "link.json")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "link.json"), filepath.Join(sub, "target.json")
		}, 0, true},
		{"dangling symlink", func(t *testing.T, dir string) (string, string) {
			link := filepath.Join(dir, "link.json")
			if err := os.Symlink("missing.json", link); err != nil {
				t.Fatal(err)
			}
			return link, filepath.Join(dir, "missing.json")
		}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, written := tt.setup(t, dir)
			if err := Write(path, text("new")); err != nil {
				t.Fatal(err)
			}
			if got := read(t, written); got != "new" {
				t.Errorf("%s holds %q, want new", written, got)
			}
			if m := lmode(t, path); (m&fs.ModeSymlink != 0) != tt.isLink {
				t.Errorf("%s has mode %v after the write; symlink wanted: %v", path, m, tt.isLink)
			}
			if m := lmode(t, written); !m.IsRegular() || tt.mode != 0 && m.Perm() != tt.mode {
				t.Errorf("%s has mode %v, want a regular file of %v", written, m, tt.mode)
			}
			leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(written), ".*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

// TestWriteDevicesInPlace: regression: --json /dev/full turned the device
// node into a regular file (as root, /dev/null would have been replaced).
// A device is written in place and stays a device; its write error is
// reported. The nodes are made by the test in its own folder.
func TestWriteDevicesInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	null := mknod(t, dir, "null", 1, 3)
	full := mknod(t, dir, "full", 1, 7)
	link := filepath.Join(dir, "to-null")
	if err := os.Symlink(null, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, device string
		wantErr            error
	}{
		{"null", null, null, nil},
		{"symlink to null", link, null, nil},
		{"full", full, full, syscall.ENOSPC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(tt.path, text(strings.Repeat("x", 100<<10)))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Write(%s) = %v, want %v", tt.path, err, tt.wantErr)
			}
			if m := lmode(t, tt.device); m&fs.ModeCharDevice == 0 {
				t.Errorf("%s is no longer a device: mode %v", tt.device, m)
			}
		})
	}
}

// TestWriteNamedPipe: a named pipe is written in place; without a reader
// the write fails at once instead of blocking for ever.
func TestWriteNamedPipe(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	if err := Write(fifo, text("lost")); err == nil || !strings.Contains(err.Error(), "no process reads") {
		t.Fatalf("write to a pipe without a reader: %v, want an error saying so", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(fifo, text("through the pipe")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 64)
	n, _ := r.Read(got)
	if string(got[:n]) != "through the pipe" {
		t.Errorf("the reader got %q", got[:n])
	}
	if m := lmode(t, fifo); m&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe became mode %v", m)
	}
}

// TestWriteFailureKeepsOld: a fill that fails leaves the old file and no
// temporary one; a folder is refused.
func TestWriteFailureKeepsOld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "result.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if got := read(t, p); got != "old" {
		t.Errorf("after a failed write the file holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only result.json", len(entries))
	}
	if err := Write(dir, text("x")); !errors.Is(err, ErrFolder) {
		t.Errorf("writing a folder: %v, want ErrFolder", err)
	}
	if err := Check(dir); !errors.Is(err, ErrFolder) {
		t.Errorf("checking a folder: %v, want ErrFolder", err)
	}
	if err := Check(filepath.Join(dir, "missing", "x.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("checking a path in a missing folder: %v, want not exist", err)
	}
}
