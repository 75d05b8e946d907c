package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/result"
)

// maxRateTable lists every rate a max-rate search judged: the warm-up,
// each search rate and each confirming round, so the answer's
// confirmation stands beside it, and why each step's runs missed. nil
// when no workload searched.
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
					t = &table{Title: "Rate search", Columns: []string{"scenario", "repeat", "workload", "step", "rate", "runs", "met the SLO", "reached records/s", "latency ms", "why runs missed"}}
				}
				for _, g := range probeGroups(m) {
					t.Rows = append(t.Rows, []string{sc.Name, strconv.Itoa(rep.Index), w.Name, g.step, g.rate, g.runs, g.kept, num(g.achieved, 0), num(g.latency, 1), g.why})
					t.Bad = append(t.Bad, g.bad)
				}
			}
		}
	}
	if t != nil {
		t.Notes = append(t.Notes, "A run meets the SLO when its latency at the SLO's percentile is within the limit, it reached at least 95% of the rate asked and every record it sent was acknowledged. "+
			"A search rate is met when as many of its runs meet the SLO as a confirmation of that many runs needs (every run of fewer than 5, 4 of 5): the confirmation's own rule; its runs stop once the verdict is known. "+
			"A confirmation runs independent probes at the rate found and steps the rate down 10% when too few meet the SLO. Reached and latency: the medians over the step's runs. The warm-up sends at full speed and is not judged.")
	}
	return t
}

// probeGroup is one row of the rate-search table.
type probeGroup struct {
	step, rate, runs, kept, why string
	achieved, latency           float64
	bad, search                 bool
	rateAsked                   float64
}

// probeGroups folds a search's probes into its steps: the runs of one
// step (or, in results without steps, consecutive runs of one kind at one
// rate). A confirmation's verdict is its round's; a search rate's is the
// search's rule (the median of its runs in results before the rule).
func probeGroups(m *result.MaxRate) []probeGroup {
	var out []probeGroup
	round := 0
	for i := 0; i < len(m.Probes); {
		p := m.Probes[i]
		j := i + 1
		for j < len(m.Probes) && m.Probes[j].Rate == p.Rate && m.Probes[j].Confirm == p.Confirm && m.Probes[j].Warmup == p.Warmup && m.Probes[j].Step == p.Step {
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
		g := probeGroup{rate: num(p.Rate, 0), rateAsked: p.Rate, runs: strconv.Itoa(len(runs)), kept: fmt.Sprintf("%d of %d", kept, len(runs)),
			achieved: result.Describe(ach).Median, latency: result.Describe(lat).Median, why: result.MissSummary(runs, m.LimitMs)}
		switch {
		case p.Warmup:
			g.step, g.kept, g.why = "warm-up", "not judged", ""
			if p.Rate == 0 {
				g.rate = "full speed"
			}
			if p.Failed > 0 {
				g.why = fmt.Sprintf("%d of %d records failed", p.Failed, p.Sent)
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
			g.step, g.search = "search", true
			if m.PerRateNeeded > 0 {
				g.kept = fmt.Sprintf("%d of %d (%d needed)", kept, len(runs), m.PerRateNeeded)
				g.bad = kept < m.PerRateNeeded
			} else {
				g.bad = g.latency > m.LimitMs || g.achieved < result.KeepUp*p.Rate
			}
		}
		out = append(out, g)
		i = j
	}
	return out
}

// missedInConfirmation reports whether rate r was met in the search and
// missed only in its confirmation.
func missedInConfirmation(m *result.MaxRate, r float64) bool {
	searchMet, confirmMissed := false, false
	for _, g := range probeGroups(m) {
		if g.rateAsked != r {
			continue
		}
		switch {
		case g.search && !g.bad:
			searchMet = true
		case g.step == "confirm" && g.bad:
			confirmMissed = true
		}
	}
	return searchMet && confirmMissed
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
		if m.Stopped == "ceiling" {
			s += " (the search's ceiling: it asked no higher rate)"
		}
	} else {
		s += "none confirmed"
		switch {
		case m.Stopped == "max_time":
			s += fmt.Sprintf(" (the search reached its time bound, %s, first)", secondsText(m.MaxTimeSeconds))
		case m.Stopped == "floor":
			s += fmt.Sprintf(" (even the floor, %.0f records/s, missed the SLO: the search stopped there)", m.Floor)
		case m.Found > 0:
			s += fmt.Sprintf(" (the search found %.0f records/s; no confirmation down from it met the SLO often enough)", m.Found)
		}
	}
	s += fmt.Sprintf("; after %d runs; limit: %s", len(m.Probes), m.Limit)
	switch {
	case m.LastMet > 0 && m.FirstMissed > 0:
		s += fmt.Sprintf("; the SLO was last met at %.0f records/s and first missed at %.0f", m.LastMet, m.FirstMissed)
		if missedInConfirmation(m, m.FirstMissed) {
			s += " (met in the search, missed in confirmation)"
		}
	case m.LastMet > 0:
		s += fmt.Sprintf("; the SLO was met up to %.0f records/s, the highest rate run", m.LastMet)
	case m.FirstMissed > 0:
		s += fmt.Sprintf("; the SLO was missed at every rate run, down to %.0f records/s", m.FirstMissed)
	}
	if why := confirmMisses(m); why != "" {
		s += "; confirming runs that missed: " + why
	}
	if m.FullSpeed > 0 || len(m.Probes) > 0 && m.Probes[0].Warmup {
		s += fmt.Sprintf("; the warm-up reached %.0f records/s at full speed", m.FullSpeed)
		if w := m.Probes[0]; w.Warmup && w.Failed > 0 {
			s += fmt.Sprintf(", and %d of the %d records it sent failed (not acknowledged by its end)", w.Failed, w.Sent)
		}
	}
	return s
}

// confirmMisses tallies why confirming runs missed the SLO ("" when none
// did).
func confirmMisses(m *result.MaxRate) string {
	var runs []result.Probe
	for _, p := range m.Probes {
		if p.Confirm {
			runs = append(runs, p)
		}
	}
	return result.MissSummary(runs, m.LimitMs)
}

// secondsText is a bound in seconds as a duration: 3600 → "1h".
func secondsText(s float64) string {
	switch {
	case s >= 3600 && s == float64(int(s/3600))*3600:
		return fmt.Sprintf("%dh", int(s/3600))
	case s >= 60 && s == float64(int(s/60))*60:
		return fmt.Sprintf("%dm", int(s/60))
	}
	return strings.TrimSuffix(strconv.FormatFloat(s, 'f', 1, 64), ".0") + "s"
}
