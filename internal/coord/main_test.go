package coord

import (
	"testing"

	"github.com/kbench/kbench/internal/leaktest"
)

// TestMain fails the package when a worker's reader or heartbeat outlives
// its Close.
func TestMain(m *testing.M) { leaktest.Main(m, nil) }
