package study

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
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
	p, err := plan.Parse("plan.yaml", []byte("name: abandon\ncluster: {bootstrap: 127.0.0.1:1}\ntopics: [{name: t, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: t, message: {size: 10}, records: 10}]\n"), nil, PlanTypes()...)
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

func folderPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.Parse("plan.yaml", []byte("name: keep\ncluster: {bootstrap: 127.0.0.1:1}\ntopics: [{name: t, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: t, message: {size: 10}, records: 10}]\n"), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runDoc is a finished plan document of one repeat whose run is named by
// its description.
func runDoc(which string) *result.Document {
	doc := result.New(result.KindPlan, "test", time.Now(), nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "keep", Description: which, Repeat: 1, Scenarios: []result.Scenario{{Name: "keep", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK}}}}}
	return doc
}

func descriptionIn(t *testing.T, path string) string {
	t.Helper()
	doc, err := result.Read(path)
	if err != nil {
		return "none (" + err.Error() + ")"
	}
	return doc.Plan.Description
}

// TestOverwriteKeepsTheEarlierRun: regression: --overwrite removed the
// earlier run's results before it ran, so a run killed (or a disk that
// filled) left the folder with neither run's. The earlier set is kept
// aside until the new one is written in full; a run cut off while
// replacing it leaves it there, and the next --overwrite keeps it still.
func TestOverwriteKeepsTheEarlierRun(t *testing.T) {
	t.Parallel()
	p := folderPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	open := func() *Folder {
		t.Helper()
		f, err := OpenFolder(p, FolderOptions{Dir: dir, Overwrite: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	must(t, f.Final(runDoc("first")))
	f.Close()

	// The second run writes a repeat, then its process is killed: no
	// Final, no Close.
	f = open()
	if got := descriptionIn(t, filepath.Join(dir, EarlierRunDir, "result.json")); got != "first" {
		t.Fatalf("while the second run runs, the earlier results hold %q", got)
	}
	cut := runDoc("second, cut off")
	cut.Status = StatusRunning
	f.between(cut)
	f.unlock()

	var log bytes.Buffer
	f, err := OpenFolder(p, FolderOptions{Dir: dir, Overwrite: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if got := descriptionIn(t, filepath.Join(dir, EarlierRunDir, "result.json")); got != "first" {
		t.Errorf("after a run cut off while replacing them, the earlier results hold %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "result.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cut-off run's result.json is still in the folder: %v", err)
	}
	if !strings.Contains(log.String(), "kept when the run replacing them was cut off") {
		t.Errorf("nothing said of the cut-off run:\n%s", &log)
	}
	must(t, f.Final(runDoc("third")))
	f.Close()
	if got := descriptionIn(t, filepath.Join(dir, "result.json")); got != "third" {
		t.Errorf("after the third run, result.json holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, EarlierRunDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier results outlived the run that replaced them: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, reserveName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the disk reserve outlived the run: %v", err)
	}
}

// TestRunThatMeasuredNothingLeavesNoFolder: regression: a refused run
// (another plan holding its cluster, faults left on the proxies) left a
// results folder holding plan.yaml; with --overwrite it took the earlier
// run's results away.
func TestRunThatMeasuredNothingLeavesNoFolder(t *testing.T) {
	t.Parallel()
	p := folderPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	f, err := OpenFolder(p, FolderOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	must(t, f.Final(nil))
	f.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(dir)
		t.Errorf("a refused run left its folder (%v): %v", err, entries)
	}

	f, err = OpenFolder(p, FolderOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	must(t, f.Final(runDoc("first")))
	f.Close()
	var log bytes.Buffer
	f, err = OpenFolder(p, FolderOptions{Dir: dir, Overwrite: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	must(t, f.Final(nil))
	f.Close()
	if got := descriptionIn(t, filepath.Join(dir, "result.json")); got != "first" {
		t.Errorf("after a refused --overwrite run, result.json holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.yaml")); err != nil {
		t.Errorf("the earlier run's plan.yaml is gone: %v", err)
	}
	if !strings.Contains(log.String(), "holds the earlier run's results again") {
		t.Errorf("nothing said:\n%s", &log)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFinalWriteOnAFullDisk: regression: a run that ended ok on a disk
// that filled during it left result.json at "running" (the write after
// its last repeat), which report then called cut off. The room the
// folder holds for the final write lets it through. Needs root to mount a
// small tmpfs as the full disk.
func TestFinalWriteOnAFullDisk(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	disk := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", disk).Run() })
	f, err := OpenFolder(folderPlan(t), FolderOptions{Dir: filepath.Join(disk, "out")})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	running := runDoc("the run")
	running.Status = StatusRunning
	f.between(running)
	// Something else fills the disk while the run goes on.
	filler, err := os.Create(filepath.Join(disk, "filler"))
	must(t, err)
	for _, err := filler.Write(make([]byte, 1<<20)); err == nil; _, err = filler.Write(make([]byte, 64<<10)) {
	}
	filler.Close()
	if err := f.Final(runDoc("the run")); err != nil {
		t.Fatalf("the final write on a full disk: %v", err)
	}
	doc, err := result.Read(filepath.Join(disk, "out", "result.json"))
	if err != nil || doc.Status != result.StatusOK {
		t.Fatalf("result.json after the final write: %v, status %q", err, doc.Status)
	}
}
