// Package infile reads the files kbench is given (plans, OMB workloads and
// drivers, properties files, stores, payload files, result documents) with a
// bound on how much it reads. The bound is checked while reading, not only
// by stat: a FIFO, a device or <(generator) has no size, and reading one
// without a bound filled the memory until the kernel's OOM killer came. A
// regular file over the bound is refused by its size before a byte is
// read. Read is the one function to learn; ReadContext is Read that a
// Ctrl-C interrupts (a FIFO with no writer waits in open until one comes);
// Open gives the same bound to a reader that decodes as it reads.
package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// ErrTooLarge is wrapped by the error of a file over its bound.
var ErrTooLarge = errors.New("file too large")

// chunk is the most Read allocates at a time: data from a pipe is kept in
// chunks and joined once at the end, so an endless pipe costs the bound,
// not the bound and its growing copies.
const chunk = 1 << 20

// Read reads all of path, at most limit bytes: a longer file (or an endless
// one such as /dev/zero or a FIFO fed by yes) is an error naming the file,
// the limit and what kbench reads it for (what: "a properties file").
func Read(path string, limit int64, what string) ([]byte, error) {
	return ReadChecked(path, limit, what, nil)
}

// ReadContext is Read until ctx ends: then it returns an error wrapping
// ctx's. A FIFO's open waits for a writer and its reads for data, for
// ever if none comes: a plan or schema_file that was a FIFO with no
// writer hung kbench, deaf to Ctrl-C.
func ReadContext(ctx context.Context, path string, limit int64, what string) ([]byte, error) {
	return read(ctx, path, limit, what, nil)
}

// ReadChecked is Read calling check (when not nil) with each piece as it
// is read, in order, so that a reader can refuse the content before the
// end (a payload file with too many records); check's error is returned.
func ReadChecked(path string, limit int64, what string, check func(piece []byte) error) ([]byte, error) {
	return read(context.Background(), path, limit, what, check)
}

func read(ctx context.Context, path string, limit int64, what string, check func(piece []byte) error) ([]byte, error) {
	f, err := open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if ctx.Done() != nil {
		// A pipe's reads go through the poller: a deadline ends the one
		// that waits. Other files do not wait (SetReadDeadline fails).
		stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
		defer stop()
	}
	data, err := readAll(f, path, limit, what, check)
	if err != nil && ctx.Err() != nil {
		return nil, interrupted(ctx, path)
	}
	return data, err
}

// readAll is read's reading of an opened file.
func readAll(f *os.File, path string, limit int64, what string, check func(piece []byte) error) ([]byte, error) {
	r := &reader{r: f, path: path, limit: limit, what: what}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, r.tooLarge() // known before reading; the bound still holds as read
	} else if err == nil && fi.Mode().IsRegular() {
		// The size only sizes the buffer; the bound is checked as read.
		data := make([]byte, 0, fi.Size()+1)
		for {
			if len(data) == cap(data) {
				data = append(data, 0)[:len(data)]
			}
			n, err := r.Read(data[len(data):cap(data)])
			if check != nil && n > 0 {
				if err := check(data[len(data) : len(data)+n]); err != nil {
					return nil, err
				}
			}
			data = data[:len(data)+n]
			if err == io.EOF {
				return data, nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	var parts [][]byte
	total := 0
	for {
		buf := make([]byte, chunk)
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if check != nil {
				if err := check(buf[:n]); err != nil {
					return nil, err
				}
			}
			parts = append(parts, buf[:n])
			total += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	data := make([]byte, 0, total)
	for _, p := range parts {
		data = append(data, p...)
	}
	return data, nil
}

// interrupted is the error of a read that ctx ended.
func interrupted(ctx context.Context, path string) error {
	return fmt.Errorf("reading %s: %w", path, context.Cause(ctx))
}

// open opens path for reading; a FIFO, whose open waits for a writer, is
// opened until ctx ends. The wait is then ended by opening the FIFO for
// writing a moment, so that the goroutine that waits returns.
func open(ctx context.Context, path string) (*os.File, error) {
	if ctx.Done() == nil {
		return os.Open(path)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(path) // only a FIFO's open waits
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
	}
	for {
		// Fails (ENXIO) until the goroutine's open is waiting.
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case o := <-done:
			if o.f != nil {
				o.f.Close()
			}
			return nil, interrupted(ctx, path)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Open opens path for reading at most limit bytes: a Read past the limit
// fails with Read's error, and a regular file larger than limit is that
// error at once (a decoder reading a 1.37 GB result held 3.1 GB before its
// Read failed). For decoders that read as they go, so that garbage fails
// at its first bytes.
func Open(path string, limit int64, what string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &readCloser{reader{r: f, path: path, limit: limit, what: what}, f}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		f.Close()
		return nil, r.tooLarge()
	}
	return r, nil
}

type readCloser struct {
	reader
	c io.Closer
}

func (r *readCloser) Close() error { return r.c.Close() }

// reader fails once more than limit bytes came from r.
type reader struct {
	r     io.Reader
	path  string
	what  string
	limit int64
	n     int64
}

func (r *reader) Read(p []byte) (int, error) {
	if r.n > r.limit {
		return 0, r.tooLarge()
	}
	if room := r.limit + 1 - r.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.r.Read(p)
	r.n += int64(n)
	if r.n > r.limit {
		return 0, r.tooLarge()
	}
	return n, err
}

func (r *reader) tooLarge() error {
	return &TooLargeError{Path: r.path, Limit: r.limit, What: r.what}
}

// TooLargeError is a file longer than kbench reads for its purpose.
type TooLargeError struct {
	Path  string
	Limit int64
	What  string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most kbench reads for %s: is it the right file?", e.Path, Size(e.Limit), e.What)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Size writes a power-of-two size as people write it (1 MiB).
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
