package engine

import (
	"testing"

	"github.com/kbench/kbench/internal/leaktest"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestMain stops the real local broker that integration tests start on
// first use (testkafka.Bootstrap) once every test has run, then fails the
// package when a goroutine outlives its tests.
func TestMain(m *testing.M) { leaktest.Main(m, testkafka.Main) }
