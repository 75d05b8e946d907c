package study

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

// ackLagNoted is how late the warm-up's last acknowledgement may come
// before the repeat's line says so: the steady window then starts well
// before the steady records' first acknowledgements.
const ackLagNoted = 500 * time.Millisecond

func (p *progress) end(rep result.Repeat) {
	took := time.Since(p.started)
	p.done++
	p.spent += took
	// The figures the summary averages: steady state's when a workload
	// has a warm-up (the warm-up excluded), said so.
	var records, steadyRecords int64
	var rate float64
	steady := false
	var notes []string
	for _, w := range rep.Workloads {
		if w.Producer == nil {
			continue
		}
		records += w.Producer.Records
		prod := w.Producer
		if prod.SteadyState != nil {
			prod, steady = prod.SteadyState, true
			if d := prod.DurationSeconds; d > 0 && d < result.ShortSteadySeconds {
				notes = append(notes, w.Name+": "+result.ShortSteadyAdvice(d))
			}
			if lag := prod.WarmupAckLagMs; lag >= ackLagNoted.Seconds()*1000 {
				notes = append(notes, fmt.Sprintf("%s: acknowledgements lagged: the warm-up's last came %.1f s after its send; steady state's rate counts from the send", w.Name, lag/1000))
			}
		}
		steadyRecords += prod.Records
		rate += prod.RecordsPerSec
		if g := w.Generator; g != nil && g.RateNote != "" {
			notes = append(notes, w.Name+": "+g.RateNote)
		}
	}
	line := fmt.Sprintf("kbench: scenario %d of %d, repeat %d of %d: %s in %s", p.scenario, p.scenarios, p.repeat, p.repeats, rep.Status, took.Round(100*time.Millisecond))
	switch {
	case records > 0 && !result.ProducersOverlap(rep):
		// Phases one after the other: their rates add up to no moment.
		line += fmt.Sprintf(", %d records (producers in sequence: no total rate)", records)
	case steady:
		line += fmt.Sprintf(", %d records; after the warm-up %d records, %.0f records/s", records, steadyRecords, rate)
	case records > 0:
		line += fmt.Sprintf(", %d records, %.0f records/s", records, rate)
	}
	for _, n := range notes {
		line += "; " + n
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
