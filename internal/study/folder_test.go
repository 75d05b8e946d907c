package study

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialWriteErrorSaidOnce: regression: --omb-result onto a full
// device printed the error twice after a finished run: once as the write
// after the last repeat failed, once as the final write's. An error the
// final write repeats is left to the run's error; others are said once.
func TestPartialWriteErrorSaidOnce(t *testing.T) {
	full := errors.New("write omb-result: no space left on device")
	var out bytes.Buffer
	p := &partialWrites{w: &out}
	p.wrote(full) // after repeat 1
	p.wrote(full) // after repeat 2: the same, not said again
	if err := p.final(full); err != full {
		t.Fatalf("final returned %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("said beside the run's error:\n%s", &out)
	}
	out.Reset()
	p = &partialWrites{w: &out}
	p.wrote(full)
	if err := p.final(nil); err != nil || strings.Count(out.String(), "no space left") != 1 {
		t.Errorf("a partial failure the final write did not repeat, said %d times:\n%s", strings.Count(out.String(), "no space left"), &out)
	}
}

// TestNewDefaultOutDir: two runs starting within a second get folders of
// their own: the second a -2.
func TestNewDefaultOutDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "results", "x")
	first, err := newDefaultOutDir(base)
	if err != nil {
		t.Fatal(err)
	}
	second, err := newDefaultOutDir(base)
	if err != nil || first != base || second != base+"-2" {
		t.Fatalf("default folders %q and %q (%v); want %q and %q", first, second, err, base, base+"-2")
	}
}
