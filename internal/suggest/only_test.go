package suggest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneWording: regression: "did you mean" was written by hand in ten
// places, quoted in some and not in others. Outside this package, no
// source file of the module words it itself.
func TestOneWording(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "suggest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(strings.ToLower(string(b)), "did you mean") {
			t.Errorf("%s words its own \"did you mean\"; use suggest.Hint or suggest.Mean", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
