package infile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRead: a file within the bound is read whole; one past it, or an
// endless device, is ErrTooLarge with the file, the bound and "is it the
// right file?"; check sees every byte, in order, and its error stops the
// reading.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 10, "a test"); err != nil || string(b) != "0123456789" {
		t.Fatalf("Read = %q, %v", b, err)
	}
	_, err := Read(small, 9, "a test")
	if !errors.Is(err, ErrTooLarge) || err.Error() != small+" is larger than 9 B, the most kbench reads for a test: is it the right file?" {
		t.Fatalf("over the bound: %v", err)
	}
	_, err = Read("/dev/zero", 3<<20, "a plan")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero is larger than 3 MiB, the most kbench reads for a plan") {
		t.Fatalf("/dev/zero: %v", err)
	}
	var seen []byte
	b, err := ReadChecked(small, 10, "a test", func(p []byte) error { seen = append(seen, p...); return nil })
	if err != nil || string(seen) != string(b) {
		t.Fatalf("check saw %q of %q (%v)", seen, b, err)
	}
	stop := errors.New("stop")
	n := 0
	if _, err := ReadChecked("/dev/zero", 1<<30, "a test", func(p []byte) error { n += len(p); return stop }); err != stop || n > chunk {
		t.Fatalf("check's error: %v after %d bytes", err, n)
	}
	if Size(1<<30) != "1 GiB" || Size(16<<20) != "16 MiB" || Size(1500) != "1500 B" {
		t.Errorf("Size: %s %s %s", Size(1<<30), Size(16<<20), Size(1500))
	}
}

// TestOpenRefusesByTheSize: regression: a 1.37 GB result was refused as
// larger than 1 GiB only after its decoder had read it, 3.1 GB resident.
// Open refuses a regular file over the bound before a byte is read;
// what has no size (a device, a FIFO) still fails at the bound as read.
func TestOpenRefusesByTheSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		limit    int64
		openErr  bool // refused by Open
		readWant string
	}{
		{"within the bound", small, 10, false, "0123456789"},
		{"over the bound", small, 9, true, ""},
		{"no size", "/dev/zero", 1 << 20, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Open(tt.path, tt.limit, "a test")
			if tt.openErr {
				if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tt.path+" is larger than") {
					t.Fatalf("Open = %v, want ErrTooLarge naming the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			if tt.readWant != "" {
				if err != nil || string(b) != tt.readWant {
					t.Fatalf("read %q, %v", b, err)
				}
				return
			}
			if !errors.Is(err, ErrTooLarge) || int64(len(b)) > tt.limit {
				t.Fatalf("read %d bytes, %v; want the bound's error", len(b), err)
			}
		})
	}
}
