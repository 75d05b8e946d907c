package runner

import (
	"fmt"
	"io"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// progress prints a line as each repeat starts and ends, with an estimate
// of the time left from the repeats so far. Plain lines: the output is
// often a CI log or a file.
type progress struct {
	w                  io.Writer
	scenarios, repeats int
	done               int
	spent              time.Duration
	scenario, repeat   int
	started            time.Time
}

func newProgress(w io.Writer, scenarios, repeats int) *progress {
	return &progress{w: w, scenarios: scenarios, repeats: repeats}
}

func (p *progress) begin(scenario, repeat int, name string) {
	p.scenario, p.repeat, p.started = scenario, repeat, time.Now()
	fmt.Fprintf(p.w, "kbench: scenario %d of %d (%s), repeat %d of %d: running\n", scenario, p.scenarios, name, repeat, p.repeats)
}

func (p *progress) end(rep result.Repeat) {
	took := time.Since(p.started)
	p.done++
	p.spent += took
	var records int64
	var rate float64
	for _, w := range rep.Workloads {
		if w.Producer != nil {
			records += w.Producer.Records
			rate += w.Producer.RecordsPerSec
		}
	}
	line := fmt.Sprintf("kbench: scenario %d of %d, repeat %d of %d: %s in %s", p.scenario, p.scenarios, p.repeat, p.repeats, rep.Status, took.Round(100*time.Millisecond))
	if records > 0 {
		line += fmt.Sprintf(", %d records, %.0f records/s", records, rate)
	}
	if left := p.scenarios*p.repeats - p.done; left > 0 {
		eta := p.spent / time.Duration(p.done) * time.Duration(left)
		line += fmt.Sprintf("; about %s left", eta.Round(time.Second))
	}
	if rep.Error != "" {
		line += ": " + rep.Error
	}
	fmt.Fprintln(p.w, line)
}
