package compare

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kbench/kbench/internal/result"
)

// WriteFiles writes compare.md and compare.html into dir, creating it, each
// through a temporary file and a rename so a reader never sees half a page.
func WriteFiles(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Report) error
	}{{"compare.md", WriteMarkdown}, {"compare.html", WriteHTML}} {
		if err := writeAtomic(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, r) }); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

func writeAtomic(path string, fill func(io.Writer) error) error {
	f, err := result.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
