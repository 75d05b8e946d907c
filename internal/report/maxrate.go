package report

import (
	"fmt"
	"strconv"

	"github.com/kbench/kbench/internal/result"
)

// maxRateTable lists every rate a max-rate search judged: the warm-up,
// each search rate (its runs' medians) and each confirming round, so the
// answer's confirmation stands beside it. nil when no workload searched.
func maxRateTable(run *result.PlanRun) *table {
	if run == nil {
		return nil
	}
	var t *table
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				m := w.MaxRate
				if m == nil {
					continue
				}
				if t == nil {
					t = &table{Title: "Rate search", Columns: []string{"scenario", "repeat", "workload", "step", "rate", "runs", "kept the SLO", "reached records/s", "latency ms"}}
				}
				for _, g := range probeGroups(m) {
					t.Rows = append(t.Rows, []string{sc.Name, strconv.Itoa(rep.Index), w.Name, g.step, g.rate, g.runs, g.kept, num(g.achieved, 0), num(g.latency, 1)})
					t.Bad = append(t.Bad, g.bad)
				}
			}
		}
	}
	if t != nil {
		t.Notes = append(t.Notes, "A search rate is judged on its runs' medians (rate reached and latency at the SLO's percentile): kept when the latency is within the limit and the rate reached is at least 95% of the rate asked. "+
			"A confirmation runs independent probes at the rate found; it needs 4 of 5 (every run of fewer than 5) to keep the SLO, and steps the rate down 10% when they do not. Latency ms: the median over the step's runs. The warm-up sends at full speed and is not judged.")
	}
	return t
}

// probeGroup is one row of the rate-search table.
type probeGroup struct {
	step, rate, runs, kept string
	achieved, latency      float64
	bad                    bool
}

// probeGroups folds a search's probes into its steps: consecutive runs of
// one kind at one rate. A confirmation's verdict is its round's.
func probeGroups(m *result.MaxRate) []probeGroup {
	var out []probeGroup
	round := 0
	for i := 0; i < len(m.Probes); {
		p := m.Probes[i]
		j := i + 1
		for j < len(m.Probes) && m.Probes[j].Rate == p.Rate && m.Probes[j].Confirm == p.Confirm && m.Probes[j].Warmup == p.Warmup {
			j++
		}
		runs := m.Probes[i:j]
		lat, ach := make([]float64, len(runs)), make([]float64, len(runs))
		kept := 0
		for k, r := range runs {
			lat[k], ach[k] = r.LatencyMs, r.Achieved
			if r.OK {
				kept++
			}
		}
		g := probeGroup{rate: num(p.Rate, 0), runs: strconv.Itoa(len(runs)), kept: fmt.Sprintf("%d of %d", kept, len(runs)),
			achieved: result.Describe(ach).Median, latency: result.Describe(lat).Median}
		switch {
		case p.Warmup:
			g.step, g.kept = "warm-up", "not judged"
			if p.Rate == 0 {
				g.rate = "full speed"
			}
		case p.Confirm:
			g.step = "confirm"
			if round < len(m.Confirmations) {
				c := m.Confirmations[round]
				g.kept = fmt.Sprintf("%d of %d (%d needed)", c.Met, c.Runs, c.Needed)
				g.bad = !c.Confirmed
			}
			round++
		default:
			g.step = "search"
			g.bad = g.latency > m.LimitMs || g.achieved < 0.95*p.Rate
		}
		out = append(out, g)
		i = j
	}
	return out
}

// maxRateNote says the answer, its confirmation and the bracket (the
// summary's note above the tables).
func maxRateNote(m *result.MaxRate) string {
	s := fmt.Sprintf("maximum rate with %s %s latency ≤ %.1f ms: ", m.Percentile, m.On, m.LimitMs)
	if m.Rate > 0 {
		s += fmt.Sprintf("%.0f records/s", m.Rate)
		if n := len(m.Confirmations); n > 0 {
			c := m.Confirmations[n-1]
			s += fmt.Sprintf(", confirmed by %d of %d independent runs", c.Met, c.Runs)
		}
		if m.Found > m.Rate {
			s += fmt.Sprintf(" (the search found %.0f; its confirmation failed, so the rate stepped down)", m.Found)
		}
	} else {
		s += "none confirmed"
		if m.Found > 0 {
			s += fmt.Sprintf(" (the search found %.0f records/s; no confirmation down from it kept the SLO often enough)", m.Found)
		}
	}
	s += fmt.Sprintf("; after %d runs; limit: %s", len(m.Probes), m.Limit)
	switch {
	case m.LastMet > 0 && m.FirstMissed > 0:
		s += fmt.Sprintf("; the SLO was last met at %.0f records/s and first missed at %.0f", m.LastMet, m.FirstMissed)
	case m.LastMet > 0:
		s += fmt.Sprintf("; the SLO was met up to %.0f records/s, the highest rate run", m.LastMet)
	case m.FirstMissed > 0:
		s += fmt.Sprintf("; the SLO was missed at every rate run, down to %.0f records/s", m.FirstMissed)
	}
	if m.FullSpeed > 0 {
		s += fmt.Sprintf("; the warm-up reached %.0f records/s at full speed", m.FullSpeed)
	}
	return s
}
