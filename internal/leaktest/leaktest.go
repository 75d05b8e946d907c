// Package leaktest fails a test binary when a goroutine outlives its
// tests (go.uber.org/goleak): whoever starts a goroutine waits for it
// (STYLE.md). Packages that start goroutines call Main from TestMain.
//
// Only goroutines that outlive their caller by intent are ignored, each
// with its reason in ignored. It is imported by tests only.
package leaktest

import (
	"testing"

	"go.uber.org/goleak"
)

// ignored are the goroutines kbench leaves running by intent.
var ignored = []goleak.Option{
	// payload's letters are filled past their first MiB in the
	// background, so the first value need not wait for 32 MiB; the fill
	// is bounded, ends on its own and is not joined (payload.newLetterBuf).
	// Under -race it can outlast goleak's retries. Any frame, not the top:
	// the fill is usually inside the random number generator.
	goleak.IgnoreAnyFunction("github.com/kbench/kbench/internal/payload.(*letterBuf).fillFrom"),
}

// Main runs the tests with run (nil: m.Run) and exits with its code,
// or with 1 when they passed but goroutines were left running. Pass run
// to wrap the tests, as testkafka.Main does to stop the shared broker:
// the check comes after run returns, so whatever run stops is not a leak.
func Main(m *testing.M, run func(*testing.M) int) {
	if run == nil {
		run = (*testing.M).Run
	}
	goleak.VerifyTestMain(runner{m, run}, ignored...)
}

// runner is what goleak.VerifyTestMain runs.
type runner struct {
	m   *testing.M
	run func(*testing.M) int
}

func (r runner) Run() int { return r.run(r.m) }
