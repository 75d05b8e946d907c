package result

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CreateTemp creates a new file in dir for an atomic write (pattern as in
// os.CreateTemp), with the permissions os.WriteFile(name, data, 0o644)
// gives, the umask applied: every file of a results folder (plan.yaml
// too) has the same, where os.CreateTemp's 0600 made result.json and the
// reports private beside a readable plan.yaml.
func CreateTemp(dir, pattern string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, strings.Replace(pattern, "*", strconv.FormatUint(rand.Uint64(), 36), 1))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file in %s: too many names taken", dir)
}
