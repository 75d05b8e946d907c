package study

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
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

// TestFolderAbandon: a process that must exit before its final write
// releases the folder's lock (regression: a stale lock was left beside
// plan.yaml) and says plainly what the folder holds and what was not
// written (regression: nothing was said).
func TestFolderAbandon(t *testing.T) {
	t.Parallel()
	p, err := plan.Parse("plan.yaml", []byte("name: abandon\ncluster: {bootstrap: 127.0.0.1:1}\ntopics: [{name: t, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: t, message: {size: 10}, records: 10}]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	f, err := OpenFolder(p, FolderOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if msg := f.Abandon(); !strings.Contains(msg, "NOT written") || !strings.Contains(msg, "holds only the plan as run") {
		t.Errorf("before any repeat: %q", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, outfile.LockName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock is still there: %v", err)
	}
	f.Close() // once more, as the deferred Close does: no harm

	f, err = OpenFolder(p, FolderOptions{Dir: dir, Overwrite: true})
	if err != nil {
		t.Fatalf("the abandoned folder cannot be opened again: %v", err)
	}
	defer f.Close()
	doc := result.New(result.KindPlan, "test", time.Now(), nil)
	doc.Plan = &result.PlanRun{Name: "abandon", Repeat: 2, Scenarios: []result.Scenario{{Name: "abandon", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK}}}}}
	f.between(doc)
	if msg := f.Abandon(); !strings.Contains(msg, "the repeat under way were NOT written") || !strings.Contains(msg, "holds the 1 repeat(s) that ended before it") {
		t.Errorf("after a repeat: %q", msg)
	}
}
