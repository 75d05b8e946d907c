package study

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kbench/kbench/internal/userr"
)

// EarlierRunDir is the subfolder of a results folder that holds an earlier
// run's results while --overwrite replaces them: they are removed only
// once the new run's results are all written, so a run killed (kill -9, a
// full disk, the machine stopped) never leaves the folder with neither
// run's results. The run that replaces them takes them back when it
// measured nothing.
const EarlierRunDir = "earlier-run"

// earlierResults lists the files of dir that are a run's results.
func earlierResults(dir string) []string {
	var names []string
	for _, f := range resultFiles {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			names = append(names, f)
		}
	}
	more, _ := filepath.Glob(filepath.Join(dir, "omb-result-*.json")) // OMB's result of further repeats
	for _, f := range more {
		names = append(names, filepath.Base(f))
	}
	return names
}

// setAside moves the results in dir into dir/EarlierRunDir for --overwrite
// and returns what to say. An EarlierRunDir already there is what a run
// killed while replacing it kept: it is the last complete set, so it
// stays, and the killed run's partial results are removed.
func setAside(dir string, log io.Writer) (kept bool, err error) {
	earlier := filepath.Join(dir, EarlierRunDir)
	names := earlierResults(dir)
	if _, err := os.Stat(filepath.Join(earlier, "result.json")); err == nil {
		for _, f := range names {
			if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, userr.Errorf("--out %s --overwrite: cannot remove the cut-off run's %s: %v", dir, f, err)
			}
		}
		fmt.Fprintf(log, "kbench: --overwrite: %s holds an earlier run's results, kept when the run replacing them was cut off; they stay there until this run's results are written (the cut-off run's are removed)\n", earlier)
		return true, nil
	}
	if len(names) == 0 {
		return false, nil
	}
	if err := os.RemoveAll(earlier); err != nil {
		return false, userr.Errorf("--out %s --overwrite: cannot clear %s: %v", dir, earlier, err)
	}
	if err := os.Mkdir(earlier, 0o755); err != nil {
		return false, userr.Errorf("--out %s --overwrite: cannot make %s to keep the earlier results in: %v", dir, earlier, err)
	}
	for _, f := range names {
		if err := os.Rename(filepath.Join(dir, f), filepath.Join(earlier, f)); err != nil {
			return false, userr.Errorf("--out %s --overwrite: cannot move the earlier %s aside: %v", dir, f, err)
		}
	}
	if err := syncDir(dir); err != nil {
		return false, err
	}
	fmt.Fprintf(log, "kbench: --overwrite: the earlier run's results are in %s until this run's are written\n", earlier)
	return true, nil
}

// dropEarlier removes the earlier run's results once this run's are all
// written.
func dropEarlier(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, EarlierRunDir)); err != nil {
		return fmt.Errorf("remove the earlier run's results (%s): %w", EarlierRunDir, err)
	}
	return nil
}

// restoreEarlier puts the earlier run's results back for a run that
// measured nothing.
func restoreEarlier(dir string) error {
	earlier := filepath.Join(dir, EarlierRunDir)
	entries, err := os.ReadDir(earlier)
	if err != nil {
		return fmt.Errorf("take the earlier run's results back: %w", err)
	}
	for _, f := range earlierResults(dir) {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("take the earlier run's results back: %w", err)
		}
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(earlier, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("take the earlier run's results back: %w", err)
		}
	}
	return os.Remove(earlier)
}

// syncDir makes renames in dir durable; a file system that cannot sync a
// folder makes them as durable as it does.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}

// reserveName is a file of zeros that holds room on the disk for the run's
// final write: it is removed just before that write, so a disk that filled
// during the run still takes the finished results (regression: a run that
// ended ok on a full disk left result.json at "running", the state of the
// write after its last repeat).
const reserveName = ".kbench-reserve"

// reserve bounds: at least what a small run's final write needs, at most
// what is reasonable to hold on someone's disk.
const (
	minReserve = 1 << 20
	maxReserve = 64 << 20
)

// growReserve makes the reserve the size of the results written so far (the
// final write is about as large), within the bounds. It only grows; a
// disk already full leaves it as large as it could be made.
func (f *Folder) growReserve() {
	var size int64
	for _, name := range earlierResults(f.Dir) {
		if fi, err := os.Stat(filepath.Join(f.Dir, name)); err == nil {
			size += fi.Size()
		}
	}
	size = min(max(size+size/4, minReserve), maxReserve)
	path := filepath.Join(f.Dir, reserveName)
	fi, err := os.Stat(path)
	if err == nil && fi.Size() >= size {
		return
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer file.Close()
	have := int64(0)
	if fi != nil {
		have = fi.Size()
	}
	// Zeros written, not a sparse truncate: a sparse file holds no blocks.
	zeros := make([]byte, 64<<10)
	for have < size {
		n, err := file.Write(zeros[:min(int64(len(zeros)), size-have)])
		have += int64(n)
		if err != nil {
			return
		}
	}
	_ = file.Sync()
}

// freeReserve gives the reserve's room back for the final write.
func (f *Folder) freeReserve() { _ = os.Remove(filepath.Join(f.Dir, reserveName)) }
