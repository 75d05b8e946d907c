package compare

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kbench/kbench/internal/outfile"
)

// WriteFiles writes compare.md and compare.html into dir, creating it, each
// through outfile.Write (atomic and synced) so a reader never sees half a page.
func WriteFiles(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Report) error
	}{{"compare.md", WriteMarkdown}, {"compare.html", WriteHTML}} {
		if err := outfile.Write(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, r) }); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}
