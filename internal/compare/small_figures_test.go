package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestSmallFiguresNotZero guards small figures printed as zero: 5-byte
// records are 0.0048 MiB/s at 1,000 records/s, which compare showed as
// 0.00 on both sides (and its --fail-if message likewise).
func TestSmallFiguresNotZero(t *testing.T) {
	t.Parallel()
	tiny := func(mib float64) result.Scenario {
		s := sc("record_size=5", []float64{1000}, []float64{3}, 0)
		s.Aggregate.MiBPerSec = result.Describe([]float64{mib})
		return s
	}
	r := load(t, planDir(t, tiny(0.00477)), planDir(t, tiny(0.00238)))
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if want := "| record_size=5 | mib_per_sec | 0.00477 | 0.00238 |"; !strings.Contains(md.String(), want) {
		t.Errorf("compare.md lacks %q:\n%s", want, md.String())
	}
}
