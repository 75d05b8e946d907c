package main

import (
	"errors"
	"path/filepath"

	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/userr"
)

// checkJSONPath proves --json's file writable before the run starts: a
// missing folder found only after the run would lose everything measured.
func checkJSONPath(path string) error {
	if path == "" {
		return nil
	}
	err := outfile.Check(path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, outfile.ErrFolder):
		return userr.Errorf("--json %s: is a folder; give a file name, such as %s", path, filepath.Join(path, "result.json"))
	default:
		return userr.Errorf("--json %s: cannot write there (%v); create the folder or pick another path", path, err)
	}
}
