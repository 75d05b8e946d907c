// Package report turns a plan run's result into the summaries a reviewer
// reads: summary.md (the studies' own results tables, mean ± spread over
// repeats) and summary.csv (the same rows, for spreadsheets and scripts).
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/result"
)

// CSVColumns are summary.csv's columns; the swept parameters come after
// "scenario", in the plan's order.
var CSVColumns = []string{"repeats", "records", "records_per_sec", "records_per_sec_stdev", "mb_per_sec",
	"p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "e2e_p99_ms", "consume_records_per_sec", "errors", "generator_bound"}

// WriteSummaryCSV writes one row per scenario: its means over repeats.
// Cells of values not measured are empty.
func WriteSummaryCSV(w io.Writer, doc *result.Document) error {
	run := doc.Plan
	if run == nil {
		return fmt.Errorf("summary: not a plan run's result")
	}
	cw := csv.NewWriter(w)
	header := append(append([]string{"scenario"}, run.Parameters...), CSVColumns...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, sc := range run.Scenarios {
		row := []string{sc.Name}
		for _, p := range run.Parameters {
			row = append(row, paramValue(sc, p))
		}
		a := sc.Aggregate
		if a == nil {
			row = append(row, "0")
			for range CSVColumns[1:] {
				row = append(row, "")
			}
			row[len(row)-2] = strconv.Itoa(len(sc.Repeats)) // every repeat failed
			cw.Write(row)
			continue
		}
		row = append(row,
			strconv.Itoa(a.Repeats),
			num(a.Records.Mean, 0),
			num(a.RecordsPerSec.Mean, 1),
			num(a.RecordsPerSec.Stdev, 1),
			num(a.MiBPerSec.Mean, 3),
			num(a.P50Ms.Mean, 3), num(a.P95Ms.Mean, 3), num(a.P99Ms.Mean, 3), num(a.P999Ms.Mean, 3), num(a.MaxMs.Mean, 3),
			optNum(a.EndToEndP99Ms, 3),
			optNum(a.ConsumeRecordsPerSec, 1),
			strconv.FormatInt(a.Errors, 10),
			strconv.FormatBool(a.GeneratorBound),
		)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func paramValue(sc result.Scenario, name string) string {
	for _, p := range sc.Params {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func num(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

func optNum(s *result.Stats, prec int) string {
	if s == nil {
		return ""
	}
	return num(s.Mean, prec)
}

// WriteSummaryMarkdown writes the plan's results table: the swept values,
// then each figure as mean ± standard deviation over repeats.
func WriteSummaryMarkdown(w io.Writer, doc *result.Document) error {
	sum, err := summarize(doc)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", sum.Title)
	if sum.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", sum.Description)
	}
	b.WriteString(sum.Status + "\n\n")
	b.WriteString("| " + strings.Join(sum.Columns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(sum.Columns)) + "\n")
	for _, row := range sum.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	for _, n := range sum.Notes {
		b.WriteString("\n" + n + "\n")
	}
	if ths := thresholdResults(doc.Plan); len(ths) > 0 {
		b.WriteString("\n## Thresholds\n\n| scenario | workload | metric | threshold | measured | result |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, th := range ths {
			b.WriteString("| " + strings.Join([]string{cell(th.Scenario), cell(th.Workload), th.Metric, th.Condition, thresholdValue(th), passFail(th)}, " | ") + " |\n")
		}
	}
	for _, n := range sum.Footnotes {
		b.WriteString("\n" + strings.Replace(n, "*", "\\*", 1) + "\n")
	}
	// After the footnotes, which explain the summary table.
	for _, t := range faultTableList(doc.Plan) {
		writeTable(&b, t)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// summary is the results table and its notes, as summary.md and
// report.html show them.
type summary struct {
	Title, Description, Status string
	Columns                    []string
	Rows                       [][]string
	Notes                      []string // catch-up reads, rate searches
	Footnotes                  []string // what the marks in the table mean, and the method
}

func summarize(doc *result.Document) (*summary, error) {
	run := doc.Plan
	if run == nil {
		return nil, fmt.Errorf("summary: not a plan run's result")
	}
	sum := &summary{Title: run.Name, Description: run.Description}
	status := fmt.Sprintf("Status: %s. %d scenario(s), %d repeat(s) each", doc.Status, len(run.Scenarios), run.Repeat)
	if env := run.Environment; env != nil {
		status += fmt.Sprintf("; %s cluster", env.Cluster)
		if len(env.BrokerVersions) > 0 {
			status += fmt.Sprintf(" (brokers %s)", strings.Join(env.BrokerVersions, ", "))
		} else if env.KafkaVersion != "" {
			status += fmt.Sprintf(" (Apache Kafka %s)", env.KafkaVersion)
		}
	}
	sum.Status = status + "."
	hasE2E, hasConsume := false, false
	for _, sc := range run.Scenarios {
		if a := sc.Aggregate; a != nil {
			hasE2E = hasE2E || a.EndToEndP99Ms != nil
			hasConsume = hasConsume || a.ConsumeRecordsPerSec != nil
		}
	}
	cols := append([]string(nil), run.Parameters...)
	if len(cols) == 0 {
		cols = []string{"scenario"}
	}
	cols = append(cols, "repeats", "records/s", "MB/s", "p50 ms", "p95 ms", "p99 ms", "p99.9 ms")
	if hasE2E {
		cols = append(cols, "e2e p99 ms")
	}
	if hasConsume {
		cols = append(cols, "consumed/s")
	}
	sum.Columns = cols
	var unstable, bound, failed bool
	for _, sc := range run.Scenarios {
		var row []string
		if len(run.Parameters) == 0 {
			row = append(row, sc.Name)
		}
		for _, p := range run.Parameters {
			row = append(row, paramValue(sc, p))
		}
		a := sc.Aggregate
		if a == nil {
			failed = true
			row = append(row, fmt.Sprintf("0 of %d ‡", len(sc.Repeats)))
			for len(row) < len(cols) {
				row = append(row, "")
			}
			sum.Rows = append(sum.Rows, row)
			continue
		}
		reps := strconv.Itoa(a.Repeats)
		if a.LeftOut > 0 {
			reps += fmt.Sprintf(" of %d ‡", a.Repeats+a.LeftOut)
			failed = true
		}
		rate := pm(a.RecordsPerSec, 0)
		if a.Unstable {
			rate += " *"
			unstable = true
		}
		if a.GeneratorBound {
			rate += " †"
			bound = true
		}
		row = append(row, reps, rate, pm(a.MiBPerSec, 2), pm(a.P50Ms, 1), pm(a.P95Ms, 1), pm(a.P99Ms, 1), pm(a.P999Ms, 1))
		if hasE2E {
			row = append(row, optPm(a.EndToEndP99Ms, 1))
		}
		if hasConsume {
			row = append(row, optPm(a.ConsumeRecordsPerSec, 0))
		}
		sum.Rows = append(sum.Rows, row)
	}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if c := w.CatchUp; c != nil {
					drain := "never caught up"
					if c.DrainSeconds > 0 {
						drain = fmt.Sprintf("read the backlog of %d records in %.1f s (%.0f records/s)", c.Records, c.DrainSeconds, c.RecordsPerSec)
					}
					sum.Notes = append(sum.Notes, fmt.Sprintf("Catch-up read (%s, repeat %d, %s): started %.0f s after the producers, %s; producers' latency meanwhile %.1f ms on average, %.1f ms at most.",
						sc.Name, rep.Index, w.Name, c.StartedAfterSeconds, drain, c.ProducerAvgLatencyMs, c.ProducerMaxLatencyMs))
				}
				if m := w.MaxRate; m != nil {
					rate := "no probed rate kept it"
					if m.Rate > 0 {
						rate = fmt.Sprintf("%.0f records/s", m.Rate)
					}
					sum.Notes = append(sum.Notes, fmt.Sprintf("Maximum rate with %s %s latency ≤ %.1f ms (%s, repeat %d, %s): %s after %d probes; limit: %s.",
						m.Percentile, m.On, m.LimitMs, sc.Name, rep.Index, w.Name, rate, len(m.Probes), m.Limit))
				}
			}
		}
	}
	sum.Footnotes = append(sum.Footnotes, "Each figure is the mean ± the standard deviation over the repeats that ended ok. "+
		"Records/s and MB/s add up every producing workload of a repeat; MB is 1024 × 1024 bytes of record values, as in the Apache tools. "+
		"Latency is publish latency (send to acknowledgement) from the repeat's merged histogram; e2e is send to consume.")
	if hasWarmup(run) {
		sum.Footnotes = append(sum.Footnotes, "Figures exclude the warm-up: records/s, MB/s and latency count the records acknowledged after steady state began "+
			"(the shaded band on the report's time charts); result.json keeps the whole run beside steady_state.")
	}
	if unstable {
		sum.Footnotes = append(sum.Footnotes, fmt.Sprintf("* unstable: records/s varied by more than %.0f%% (coefficient of variation) between repeats; run more repeats or find the noise.", 100*result.UnstableCV))
	}
	if bound {
		sum.Footnotes = append(sum.Footnotes, "† generator-bound: kbench itself, not the cluster, limited these numbers (see generator_reasons in result.json).")
	}
	if failed {
		sum.Footnotes = append(sum.Footnotes, "‡ some repeats failed or were interrupted and are left out (see result.json).")
	}
	return sum, nil
}

// hasWarmup reports whether any producing workload of the run had a
// warm-up, left out of the summary's figures.
func hasWarmup(run *result.PlanRun) bool {
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if w.Producer != nil && w.Producer.SteadyState != nil {
					return true
				}
			}
		}
	}
	return false
}

func thresholdValue(th result.ThresholdResult) string {
	if th.Missing {
		return "not measured"
	}
	return strconv.FormatFloat(th.Value, 'f', -1, 64)
}

func passFail(th result.ThresholdResult) string {
	if th.Passed {
		return "passed"
	}
	return "**failed**"
}

// cell escapes what would break a Markdown table cell: a swept value may
// hold a pipe or a line break.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func pm(s result.Stats, prec int) string {
	if s.N > 1 {
		return num(s.Mean, prec) + " ± " + num(s.Stdev, prec)
	}
	return num(s.Mean, prec)
}

func optPm(s *result.Stats, prec int) string {
	if s == nil {
		return ""
	}
	return pm(*s, prec)
}

// WriteAll writes summary.md, summary.csv and report.html into dir, each
// through a temporary file and a rename, so a reader never sees half a
// report. report.html shows the folder's plan.yaml when there is one.
func WriteAll(dir string, doc *result.Document) error {
	var in HTMLInput
	if b, err := os.ReadFile(filepath.Join(dir, "plan.yaml")); err == nil {
		in.PlanYAML = string(b)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *result.Document) error
	}{
		{"summary.md", WriteSummaryMarkdown},
		{"summary.csv", WriteSummaryCSV},
		{"report.html", func(w io.Writer, doc *result.Document) error { return WriteHTML(w, doc, in) }},
	} {
		if err := writeAtomic(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, doc) }); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

func writeAtomic(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
