package compare

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/kbench/kbench/internal/units"
)

// Columns are the comparison table's columns, in Markdown and HTML alike.
var Columns = []string{"scenario", "metric", "A", "B", "change", "verdict"}

// Explanation says how to read the table; both formats end with it.
const Explanation = "A and B are each scenario's mean over its repeats that ended ok; (−x/+y%) is its 95% confidence interval relative to the mean, " +
	"computed on the logarithm so that it never goes below 0, given from 3 repeats on. " +
	"Change is (B − A) / A; n/a when A is 0. Higher is better for rates, lower for latency and errors. " +
	"A change is within noise when both sides have an interval and the intervals overlap; " +
	"with fewer than 3 repeats on a side there is no interval (1 repeat has no spread; with 2, Student's t of 12.7 stretches it beyond anything possible) " +
	"and the verdict only gives the direction. Errors, lost and duplicated are counts, compared exactly; " +
	"they and the faults' times come from every repeat, the other figures from the repeats that ended ok."

// cells formats a row for display.
func (r Row) cells() []string {
	return []string{r.Scenario, r.Metric.Name, formatValue(r.Metric, r.A), formatValue(r.Metric, r.B),
		formatChange(r.Change), r.verdictText()}
}

func (r Row) verdictText() string {
	if r.Note != "" {
		return string(r.Verdict) + " (" + r.Note + ")"
	}
	return string(r.Verdict)
}

// formatNum is a figure with the metric's decimals, or 3 significant
// digits under 1 (units.Figure): 0.0048 MiB/s was shown as 0.00.
func formatNum(m Metric, x float64) string { return units.Figure(x, m.prec) }

func formatValue(m Metric, v *Value) string {
	if v == nil {
		return "—"
	}
	s := formatNum(m, v.Mean)
	if v.HasCI && !v.Exact && v.Mean != 0 {
		s += fmt.Sprintf(" (−%.1f/+%.1f%%)", (v.Mean-v.Low)/math.Abs(v.Mean)*100, (v.High-v.Mean)/math.Abs(v.Mean)*100)
	}
	return s
}

// formatChange shows a change in percent; infinite (from 0) and missing
// changes are n/a.
func formatChange(c float64) string {
	switch {
	case math.IsInf(c, 0) || math.IsNaN(c):
		return "n/a"
	case negligible(c):
		return "0.0%" // never -0.0%
	}
	return fmt.Sprintf("%+.1f%%", c)
}

// WriteMarkdown writes the comparison as Markdown: the sides, the table,
// the scenarios of one side only and how to read it.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString("# kbench compare\n\n")
	fmt.Fprintf(&b, "- A: %s\n- B: %s\n\n", r.A, r.B)
	if len(r.Rows) > 0 {
		b.WriteString("| " + strings.Join(Columns, " | ") + " |\n")
		b.WriteString("| --- | --- | ---: | ---: | ---: | --- |\n")
		for _, row := range r.Rows {
			cs := row.cells()
			for i := range cs {
				cs[i] = cell(cs[i])
			}
			b.WriteString("| " + strings.Join(cs, " | ") + " |\n")
		}
	} else {
		b.WriteString("No scenario present in both results to compare.\n")
	}
	if len(r.OnlyA) > 0 {
		fmt.Fprintf(&b, "\nOnly in A: %s.\n", names(r.OnlyA))
	}
	if len(r.OnlyB) > 0 {
		fmt.Fprintf(&b, "\nOnly in B: %s.\n", names(r.OnlyB))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n%s.\n", n)
	}
	b.WriteString("\n" + Explanation + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func names(ns []string) string {
	q := make([]string, len(ns))
	for i, n := range ns {
		q[i] = cell(n)
	}
	return strings.Join(q, ", ")
}

// cell escapes what would break a Markdown table cell: scenario names hold
// swept values, which may hold a pipe or a line break.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
