package runner

import (
	"os"
	"testing"

	"github.com/kbench/kbench/internal/testkafka"
)

// TestMain stops the real local broker that integration tests start on
// first use (testkafka.Bootstrap), once every test has run.
func TestMain(m *testing.M) { os.Exit(testkafka.Main(m)) }
