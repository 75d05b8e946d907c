package kafkaconf

import (
	"fmt"
	"io"
	"os"
)

// Bounds on the files kbench reads for client settings: a properties file
// holds settings (a few KiB even with inline certificates), a key or trust
// store a few certificates. Reading without a bound let a wrong path such
// as /dev/zero fill the memory until Go's runtime gave up.
const (
	MaxPropertiesFile = 1 << 20  // bytes
	MaxStoreFile      = 16 << 20 // bytes
)

// readBounded reads at most limit bytes of path; a longer file (or an
// endless one such as /dev/zero) is an error that names the limit.
func readBounded(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %s, the most kbench reads for %s: is it the right file?", path, sizeText(limit), what)
	}
	return data, nil
}

// sizeText writes a power-of-two size as people write it (1 MiB).
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
