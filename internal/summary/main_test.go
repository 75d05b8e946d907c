package summary

import (
	"testing"

	"github.com/kbench/kbench/internal/leaktest"
)

// TestMain fails the package when a goroutine outlives its tests.
func TestMain(m *testing.M) { leaktest.Main(m, nil) }
