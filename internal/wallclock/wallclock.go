// Package wallclock is the wall clock a distributed run's worker reads
// against the reference (internal/coord): its clock samples and the
// starts it sets. It is time.Now, unless the test hook
// KBENCH_TEST_CLOCK_OFFSET shifts it, read once when the process starts:
// a test then runs workers on one machine as if their clocks disagreed
// (docs/notes.md, "Test hooks"). Durations between two readings of Now
// are exact; a reading of Now compared with time.Now's is the offset
// apart, as two machines' clocks are: kbench's monotonic timing
// (time.Since of time.Now) does not go through it.
package wallclock

import (
	"fmt"
	"os"
	"time"
)

// EnvTestOffset names the test hook: a Go duration ("-3s", "1.5s") added
// to every reading of Now.
const EnvTestOffset = "KBENCH_TEST_CLOCK_OFFSET"

// skew and skewErr are the hook's value, read once.
var skew, skewErr = parse(os.Getenv(EnvTestOffset))

// parse reads the hook's value ("" is none).
func parse(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want a Go duration such as -3s or 1.5s (a test hook): %w", EnvTestOffset, s, err)
	}
	return d, nil
}

// Now is this host's wall clock as the worker reads it: time.Now plus
// the test hook's offset.
func Now() time.Time { return time.Now().Add(skew) }

// TestOffset is the test hook's offset (0 without it): how far Now is
// ahead of time.Now, which the rest of kbench reads.
func TestOffset() time.Duration { return skew }

// Err says why the hook's value was refused (nil: none or a good one).
func Err() error { return skewErr }

// Process is a time on Now's clock as time.Now would read it: where the
// worker hands a time it computed on Now's clock to the engines.
func Process(t time.Time) time.Time { return t.Add(-skew) }
