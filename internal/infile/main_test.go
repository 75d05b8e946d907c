package infile

import (
	"testing"

	"github.com/kbench/kbench/internal/leaktest"
)

// ReadContext starts a goroutine to open a FIFO; it must end with the read.
func TestMain(m *testing.M) { leaktest.Main(m, nil) }
