// Package outfile writes the files kbench produces (result.json, the
// reports, compare pages, --json files) so that a crash never leaves half a
// file and the path the user gave is honoured. Write is the one way to
// write them; Check proves a path writable before a run.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/google/renameio/v2"
)

// Perm is the mode of a new file (less the umask); a file replaced keeps
// its own.
const Perm = 0o644

// maxLinks bounds the symlinks followed, as Linux does (MAXSYMLINKS).
const maxLinks = 40

// ErrFolder is returned for a path that names a folder.
var ErrFolder = errors.New("is a folder")

// Write writes the file at path with what fill writes:
//
//   - a regular file, or a new one, is replaced atomically: fill writes a
//     temporary file in the same folder, which is synced to disk, renamed
//     over path, and the folder synced, so that after a crash path holds
//     the old content or the new, never half of it;
//   - a symlink is followed and its target written as above; the link
//     stays a link;
//   - anything else, a device such as /dev/null, a named pipe or a
//     terminal (also /dev/stdout), is written in place, appending, and
//     never replaced: replacing /dev/null would break the system.
func Write(path string, fill func(io.Writer) error) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.inPlace {
		return writeInPlace(t, fill)
	}
	dir := filepath.Dir(t.path)
	pf, err := renameio.NewPendingFile(t.path, renameio.WithTempDir(dir),
		renameio.WithPermissions(Perm), renameio.WithExistingPermissions())
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	if err := fillBuffered(pf, fill); err != nil {
		return err
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return err
	}
	return syncDir(dir)
}

// Check proves, before a run, that Write can write path: a folder is an
// error (ErrFolder); a file to replace needs a writable folder.
func Check(path string) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.inPlace {
		return nil // opened when written; checking could block on a pipe
	}
	f, err := os.CreateTemp(filepath.Dir(t.path), ".kbench-write-check-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err // the temporary name means nothing to the user
		}
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// target is where Write writes for a path.
type target struct {
	path    string
	inPlace bool
	pipe    bool
}

// resolve follows path's symlinks to the file they name, which may not
// exist yet.
func resolve(path string) (target, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return target{path: p}, nil
		}
		if err != nil {
			return target{}, err
		}
		mode := fi.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			if underProc(p) {
				// /proc/self/fd/1 (/dev/stdout) names an open file, not a
				// path: writing it writes that file, wherever it is.
				return target{path: p, inPlace: true}, nil
			}
			dest, err := os.Readlink(p)
			if err != nil {
				return target{}, err
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(p), dest)
			}
			p = dest
		case mode.IsDir():
			return target{}, fmt.Errorf("%s %w", p, ErrFolder)
		case mode.IsRegular():
			return target{path: p}, nil
		default:
			return target{path: p, inPlace: true, pipe: mode&fs.ModeNamedPipe != 0}, nil
		}
	}
	return target{}, fmt.Errorf("%s: more than %d symlinks in a row", path, maxLinks)
}

// underProc reports whether p lies in /proc, whose fd links are not paths.
func underProc(p string) bool {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		dir = filepath.Dir(p)
	}
	return dir == "/proc" || strings.HasPrefix(dir, "/proc/")
}

func writeInPlace(t target, fill func(io.Writer) error) error {
	flags := os.O_WRONLY | os.O_APPEND
	if t.pipe {
		// A named pipe without a reader would block the open for ever;
		// non-blocking, the open fails at once instead (ENXIO).
		flags |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(t.path, flags, 0)
	if err != nil {
		if t.pipe && errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("%s: a named pipe that no process reads", t.path)
		}
		return err
	}
	if err := fillBuffered(f, fill); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fillBuffered(w io.Writer, fill func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := fill(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		// Some file systems cannot sync a folder (EINVAL); the rename is
		// then as durable as they make it.
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
