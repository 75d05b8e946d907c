package infile

import (
	"errors"
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
