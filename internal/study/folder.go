package study

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/ombresult"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// FolderOptions say where a study's results go.
type FolderOptions struct {
	// Dir is the results folder ("": results/NAME-UTCTIME, made anew).
	Dir string
	// Started is the run's start, the UTCTIME of the default folder's name
	// (zero: now, as a run opens its folder just before it starts). kbench
	// collect gives the collected run's: its folder was named after the
	// collect.
	Started time.Time
	// Overwrite replaces an earlier run's results in Dir (refused
	// otherwise).
	Overwrite bool
	// OMBResult, for a plan from OMB files, is a further file for OMB's
	// result ("": only the folder's omb-result.json).
	OMBResult string
	// Log gets what is said beside the run (stderr): the earlier results
	// removed, the errors of the writes between repeats, the repeats OMB's
	// result could not hold.
	Log io.Writer
}

// Folder is a study's results folder, opened and locked before anything
// runs: result.json, summary.md, summary.csv, report.html, the plan as run
// (plan.yaml) and, for a plan from OMB files, OMB's result. Run writes it
// after every repeat (Options.Folder), so a crash or kill keeps what was
// measured; Final writes it once the run has ended.
type Folder struct {
	Dir       string
	unlock    func()
	plan      *plan.Plan
	planYAML  string // as plan.yaml holds it
	ombResult string
	log       io.Writer
	partial   partialWrites
	// written counts the repeats the folder's last complete write held
	// (-1: none yet); read by Abandon from another goroutine.
	written atomic.Int64
	// created: this run made the folder; earlier: an earlier run's
	// results wait in EarlierRunDir until this run's are written.
	created, earlier bool
}

// OpenFolder opens the results folder of plan p (openOutDir), checks that
// o.OMBResult can be written and writes plan.yaml, all before anything
// runs. Close it once the last write is done.
func OpenFolder(p *plan.Plan, o FolderOptions) (*Folder, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	out, err := openOutDir(p.Name, o)
	if err != nil {
		return nil, err
	}
	unlock := sync.OnceFunc(out.unlock) // Close, or Abandon from another goroutine

	f := &Folder{Dir: out.dir, unlock: unlock, created: out.created, earlier: out.earlier,
		plan: p, ombResult: o.OMBResult, log: o.Log, partial: partialWrites{w: o.Log}}
	f.written.Store(-1)
	if o.OMBResult != "" {
		if err := outfile.Check(o.OMBResult); err != nil {
			unlock()
			return nil, userr.Errorf("--omb-result %s: cannot write there: %v; give a file in a folder you can write", o.OMBResult, err)
		}
	}
	planYAML := p.Redacted()
	if err := outfile.Write(filepath.Join(f.Dir, "plan.yaml"), func(w io.Writer) error { _, err := w.Write(planYAML); return err }); err != nil {
		unlock()
		return nil, fmt.Errorf("write the plan as run: %w", err)
	}
	f.planYAML = string(planYAML)
	f.growReserve()
	return f, nil
}

// Close releases the folder's lock.
func (f *Folder) Close() {
	f.freeReserve()
	f.unlock()
}

// Abandon is for a process that must exit before its final write (its
// wind-down outlasted the grace after a second Ctrl-C): it releases the
// lock, so the folder is not taken for a run still going on, and returns
// what to tell the user: what the folder holds, and that the rest was not
// written. Safe beside a write under way.
func (f *Folder) Abandon() string {
	f.freeReserve()
	f.unlock()
	var msg string
	switch n := f.written.Load(); n {
	case -1:
		msg = fmt.Sprintf("the results were NOT written: kbench had to exit before the first repeat ended; %s holds only the plan as run", f.Dir)
	default:
		msg = fmt.Sprintf("the results of the repeat under way were NOT written: kbench had to exit before it ended; %s holds the %d repeat(s) that ended before it", f.Dir, n)
	}
	if f.earlier {
		msg += fmt.Sprintf(", and the earlier run's results are kept in %s", filepath.Join(f.Dir, EarlierRunDir))
	}
	return msg
}

// Final writes the folder once the run has ended and returns the error;
// doc nil (the run never began) writes nothing. A write error of the
// writes between repeats that this one does not repeat is said first.
//
// A run that measured nothing (doc nil: refused, or stopped before its
// first repeat began) leaves the folder as it found it: the plan as run is
// removed, a folder it made removed, an earlier run's results put back
// (regression: a refused run left a results folder holding plan.yaml).
// Written in full with a repeat or more, it removes the earlier run's
// results it replaced; a write that failed, or a run that ended before a
// repeat did, keeps them.
func (f *Folder) Final(doc *result.Document) error {
	f.freeReserve() // the room it held is for this write
	if doc == nil {
		f.partial.wrote(nil)
		return f.unmake()
	}
	err := f.partial.final(f.write(doc, true))
	switch {
	case !f.earlier:
	case err == nil && repeatsIn(doc) > 0:
		err = dropEarlier(f.Dir)
	default:
		fmt.Fprintf(f.log, "kbench: the earlier run's results are kept in %s\n", filepath.Join(f.Dir, EarlierRunDir))
	}
	return err
}

// unmake undoes what opening the folder did, for a run that measured
// nothing.
func (f *Folder) unmake() error {
	if err := os.Remove(filepath.Join(f.Dir, "plan.yaml")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the plan of a run that measured nothing: %w", err)
	}
	if f.earlier {
		if err := restoreEarlier(f.Dir); err != nil {
			return err
		}
		fmt.Fprintf(f.log, "kbench: nothing was measured: %s holds the earlier run's results again\n", f.Dir)
		return nil
	}
	if f.created {
		f.unlock() // the lock file goes first: the folder must be empty
		if os.Remove(f.Dir) == nil {
			fmt.Fprintf(f.log, "kbench: nothing was measured: %s removed\n", f.Dir)
		}
	}
	return nil
}

// between writes the folder after a repeat; an error is said once (on
// Log), not ending the run.
func (f *Folder) between(doc *result.Document) {
	f.partial.wrote(f.write(doc, false))
	f.growReserve()
}

// write writes every file of the results folder; final is the run's last
// write (OMB's result says then which repeats it could not make).
func (f *Folder) write(doc *result.Document, final bool) (err error) {
	defer func() {
		if err == nil {
			f.written.Store(int64(repeatsIn(doc)))
		}
	}()
	omb := f.plan.OMB
	if doc.Plan != nil {
		doc.Plan.PlanYAML = f.planYAML // kbench report of a result.json alone shows it
		if omb != nil {
			doc.Plan.OMB = OMBRun(omb).Record() // and writes omb-result.json again
		}
	}
	err = errors.Join(result.Write(filepath.Join(f.Dir, "result.json"), doc), report.WriteAll(f.Dir, doc))
	if omb != nil {
		err = errors.Join(err, writeOMBResult(f.log, f.Dir, f.ombResult, doc, omb, final))
	}
	return err
}

// repeatsIn counts the repeats a plan document holds.
func repeatsIn(doc *result.Document) int {
	n := 0
	if doc.Plan != nil {
		for _, sc := range doc.Plan.Scenarios {
			n += len(sc.Repeats)
		}
	}
	return n
}

// resultFiles are the files a plan run writes in its results folder;
// --overwrite moves an earlier run's aside (EarlierRunDir) before anything
// runs, so the folder never mixes two runs.
var resultFiles = []string{"result.json", "summary.md", "summary.csv", "report.html", "plan.yaml", ombresult.FileName}

// openOutDir creates and locks the results folder and proves it writable
// before anything runs, so a bad --out never costs a run. Its messages
// name kbench run's flags: it is their only reader. A folder another
// run is writing (locked), or one holding an earlier run's result.json, is
// refused unless --overwrite; the default folder (results/NAME-UTCTIME)
// gets a -2, -3 ... suffix when two runs start within a second.
func openOutDir(name string, o FolderOptions) (out outDir, err error) {
	dir := o.Dir
	if dir == "" {
		at := o.Started
		if at.IsZero() {
			at = time.Now()
		}
		dir, err = newDefaultOutDir(filepath.Join("results", name+"-"+at.UTC().Format("20060102T150405Z")))
		if err != nil {
			return out, userr.Errorf("results folder %s: %v; run from a folder you can write, or give --out DIR", dir, err)
		}
		out.created = true
	} else {
		_, err := os.Stat(dir)
		out.created = errors.Is(err, fs.ErrNotExist)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return out, userr.Errorf("--out %s: %v; pick a folder you can write", dir, err)
		}
	}
	unlock, err := outfile.Lock(dir)
	var busy *outfile.BusyError
	switch {
	case errors.As(err, &busy):
		return out, userr.Errorf("--out %s: %v, writing its results there; wait for it to end or give another --out folder", dir, err)
	case err != nil:
		return out, userr.Errorf("--out %s: cannot write there: %v", dir, err)
	}
	fail := func(err error) (outDir, error) { unlock(); return outDir{}, err }
	_, errEarlier := os.Stat(filepath.Join(dir, EarlierRunDir, "result.json"))
	if _, err := os.Lstat(filepath.Join(dir, "result.json")); (err == nil || errEarlier == nil) && !o.Overwrite {
		return fail(userr.Errorf("--out %s holds the results of an earlier run (result.json); give another --out folder, or add --overwrite to replace them", dir))
	}
	if o.Overwrite {
		if out.earlier, err = setAside(dir, o.Log); err != nil {
			return fail(err)
		}
	}
	if err := outfile.Check(filepath.Join(dir, "result.json")); err != nil {
		return fail(userr.Errorf("--out %s: cannot write there: %v", dir, err))
	}
	out.dir, out.unlock = dir, unlock
	return out, nil
}

// outDir is a results folder opened and locked.
type outDir struct {
	dir    string
	unlock func()
	// created: the folder did not exist before this run (a run that
	// measured nothing removes it again); earlier: an earlier run's
	// results wait in EarlierRunDir.
	created, earlier bool
}

// newDefaultOutDir creates base, or base-2, base-3 ... if it exists: a
// folder this run alone uses (os.Mkdir fails on an existing one).
func newDefaultOutDir(base string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return base, err
	}
	dir := base
	for i := 2; ; i++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 1000 {
			return dir, err
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// partialWrites says the errors of the writes between repeats once each:
// an error is held until the next write, and not said when the final
// write fails the same way (the run's error says it; --omb-result onto a
// full device printed it twice).
type partialWrites struct {
	w       io.Writer
	pending error
}

// wrote takes the error of a write between repeats (nil: it worked).
func (p *partialWrites) wrote(err error) {
	if p.pending != nil && (err == nil || err.Error() != p.pending.Error()) {
		fmt.Fprintf(p.w, "kbench: write partial results: %v\n", p.pending)
	}
	p.pending = err
}

// final takes the final write's error and returns it.
func (p *partialWrites) final(err error) error {
	if err != nil && p.pending != nil && err.Error() == p.pending.Error() {
		p.pending = nil
	}
	p.wrote(nil)
	return err
}
