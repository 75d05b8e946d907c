package infile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestReadContextInterrupts: regression: a plan or schema_file that was a
// FIFO with no writer hung kbench in open, and Ctrl-C did nothing; one
// whose writer never wrote hung it in read. ReadContext returns the
// context's error once it ends, in both, and leaves no goroutine behind
// (TestMain); a FIFO whose writer comes is read as before.
func TestReadContextInterrupts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		writer bool // a writer that opens the FIFO and writes nothing
	}{{"no writer", false}, {"a silent writer", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fifo := filepath.Join(t.TempDir(), "plan.yaml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			if tc.writer {
				w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a FIFO opened read-write does not wait
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { w.Close() })
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			_, err := ReadContext(ctx, fifo, 1<<20, "a plan")
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fifo) {
				t.Fatalf("ReadContext = %v, want the file and context.Canceled", err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("returned %v after the cancel", took)
			}
		})
	}
	t.Run("a writer that comes", func(t *testing.T) {
		t.Parallel()
		fifo := filepath.Join(t.TempDir(), "plan.yaml")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			time.Sleep(50 * time.Millisecond) // the reader waits for it first
			done <- os.WriteFile(fifo, []byte("name: p\n"), 0)
		}()
		b, err := ReadContext(t.Context(), fifo, 1<<20, "a plan")
		if err != nil || string(b) != "name: p\n" {
			t.Errorf("ReadContext = %q, %v", b, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
