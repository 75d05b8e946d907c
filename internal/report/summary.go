// Package report turns a plan run's result into the summaries a reviewer
// reads: summary.md (the studies' own results tables, mean ± spread over
// repeats) and summary.csv (the same rows, for spreadsheets and scripts).
package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/units"
)

// CSVColumns are summary.csv's columns; the swept parameters come after
// "scenario", in the plan's order.
var CSVColumns = slices.Concat(figureCSVColumns, brokerCSVColumns)

// figureCSVColumns are the scenario's own figures.
var figureCSVColumns = []string{"repeats", "records", "records_per_sec", "records_per_sec_stdev", "mb_per_sec",
	"p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "e2e_p99_ms", "consume_records_per_sec", "failed_records", "failed_repeats", "generator_bound", "interrupted"}

// brokerCSVColumns end summary.csv's row: the brokers' cost (brokerCSV).
var brokerCSVColumns = []string{"broker_cpu_per_mrec", "broker_rss_peak_mib", "broker_written_per_record", "broker_records_per_core", "broker_handler_busy_pct", "broker_disk_busy_pct"}

// WriteSummaryCSV writes one row per scenario: its means over repeats;
// with workloads measuring the same figures, a row per workload and their
// total (column "workload" after the parameters). Cells of values not
// measured are empty.
func WriteSummaryCSV(w io.Writer, doc *result.Document) error {
	run := doc.Plan
	if run == nil {
		return fmt.Errorf("summary: not a plan run's result")
	}
	split := perWorkload(run)
	cw := csv.NewWriter(w)
	header := append([]string{"scenario"}, run.Parameters...)
	if split {
		header = append(header, "workload")
	}
	if err := cw.Write(append(header, CSVColumns...)); err != nil {
		return err
	}
	for _, r := range tableRows(run, split) {
		row := []string{r.sc.Name}
		for _, p := range run.Parameters {
			row = append(row, paramValue(*r.sc, p))
		}
		if split {
			row = append(row, r.workload)
		}
		failed := ""
		if n, ok := failedRecords(r.sc, r.workload, r.total); ok {
			failed = strconv.FormatInt(n, 10)
		}
		stdev := ""
		if r.rate != nil {
			stdev = num(r.rate.Stdev, 1)
		}
		row = append(row,
			strconv.Itoa(r.repeats),
			r.recordsNum(),
			optNum(r.rate, 1),
			stdev,
			optNum(r.mib, 3),
			r.latencyNum(r.p50), r.latencyNum(r.p95), r.latencyNum(r.p99), r.latencyNum(r.p999), r.latencyNum(r.maxMs),
			optNum(r.e2e, 3),
			optNum(r.consume, 1),
			failed,
			strconv.Itoa(failedRepeats(r.sc)),
			strconv.FormatBool(r.bound),
			strconv.FormatBool(r.interrupted),
		)
		// The brokers' cost is the scenario's: on its only or total row.
		cost := make([]string, len(brokerCSVColumns))
		if r.workload == "" || r.total {
			cost = brokerCSV(r.sc)
		}
		row = append(row, cost...)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// brokerCSV is a scenario's brokers' cost for summary.csv: the means over
// its repeats that ended ok of the CPU seconds per million records, the
// peak memory of one broker (MiB), bytes written per record, records per
// broker CPU second (the records/s one broker core carries) and the
// busiest broker's request handlers' busy share (%); empty cells where no
// repeat measured them.
func brokerCSV(sc *result.Scenario) []string {
	s := result.BrokerSeriesOf(sc.Repeats)
	mean := func(xs []float64, prec int) string {
		if len(xs) == 0 {
			return ""
		}
		return num(result.Describe(xs).Mean, prec)
	}
	return []string{mean(s.CPUPerMRec, 3), mean(s.RSSPeakMiB, 0), mean(s.WrittenPerRecord, 0), mean(s.RecordsPerCore, 0), mean(s.HandlerBusyPct, 1), mean(s.DiskBusyPct, 1)}
}

// failedRecords is how many records a scenario's producers failed over
// all its repeats, failed and interrupted ones too: the workload's own on
// its row, every workload's on the scenario's only row or its total row.
// ok is false when no repeat had a producer to fail any.
func failedRecords(sc *result.Scenario, workload string, total bool) (n int64, ok bool) {
	for _, rep := range sc.Repeats {
		for _, w := range rep.Workloads {
			if w.Producer != nil && (total || workload == "" || w.Name == workload) {
				n, ok = n+w.Producer.Failed, true
			}
		}
	}
	return n, ok
}

// failedRepeats is how many of a scenario's repeats failed.
func failedRepeats(sc *result.Scenario) int {
	n := 0
	for _, rep := range sc.Repeats {
		if rep.Status == result.StatusFailed {
			n++
		}
	}
	return n
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

// optNum is a figure of summary.csv (units.Figure: a small one keeps its
// significant digits); empty when not measured.
func optNum(s *result.Stats, prec int) string {
	if s == nil {
		return ""
	}
	return units.Figure(s.Mean, prec)
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
	for _, t := range sectionTables(doc.Plan) {
		writeTable(&b, t)
	}
	writeTable(&b, schemaTable(doc.Plan))
	writeTable(&b, maxRateTable(doc.Plan))
	writeTable(&b, brokerTable(doc.Plan))
	writeTable(&b, tierTable(doc.Plan))
	writeTable(&b, watchedTable(doc.Plan))
	writeTable(&b, settlingTable(doc.Plan))
	for _, t := range workersTables(doc.Plan) {
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

// ProxiesNote says that a run went through kbench's network proxies and
// what they cost.
const ProxiesNote = "every connection ran through kbench's network proxies (for the network faults), which cost throughput of their own even with no fault set (idle, on a 2-core machine: about 30% of the full-speed records/s, no measurable p50 at a moderate rate; kbench's benchmarks documentation): compare against a baseline on the same proxied cluster, not a direct one"

func summarize(doc *result.Document) (*summary, error) {
	run := doc.Plan
	if run == nil {
		return nil, fmt.Errorf("summary: not a plan run's result")
	}
	sum := &summary{Title: run.Name, Description: run.Description}
	status := "Status: " + doc.Status
	if doc.Error != "" && doc.Status != result.StatusOK {
		// Regression: a plan whose cluster did not start said only
		// "Status: failed. 0 scenario(s)"; the reason was in result.json.
		status += " (" + firstLine(doc.Error) + ")"
	}
	status += fmt.Sprintf(". %d scenario(s), %d repeat(s) each", len(run.Scenarios), run.Repeat)
	if env := run.Environment; env != nil && env.Cluster != "" {
		status += fmt.Sprintf("; %s cluster", env.Cluster)
		if len(env.BrokerVersions) > 0 {
			status += fmt.Sprintf(" (brokers %s)", strings.Join(env.BrokerVersions, ", "))
		} else if env.KafkaVersion != "" {
			status += fmt.Sprintf(" (Apache Kafka %s)", env.KafkaVersion)
		}
		if env.NetworkProxies {
			status += "; " + ProxiesNote
		}
	}
	sum.Status = status + "."
	split := perWorkload(run)
	rows := tableRows(run, split)
	hasE2E, hasConsume := false, false
	for _, r := range rows {
		hasE2E = hasE2E || r.e2e != nil
		hasConsume = hasConsume || r.consume != nil
	}
	cols := append([]string(nil), run.Parameters...)
	if len(cols) == 0 {
		cols = []string{"scenario"}
	}
	if split {
		cols = append(cols, "workload")
	}
	cols = append(cols, "repeats", "records/s", "MB/s", "p50 ms", "p95 ms", "p99 ms", "p99.9 ms")
	if hasE2E {
		cols = append(cols, "e2e p99 ms")
	}
	if hasConsume {
		cols = append(cols, "consumed/s")
	}
	sum.Columns = cols
	var unstable, bound, failed, interrupted bool
	for _, r := range rows {
		var row []string
		if len(run.Parameters) == 0 {
			row = append(row, r.sc.Name)
		}
		for _, p := range run.Parameters {
			row = append(row, paramValue(*r.sc, p))
		}
		if split {
			row = append(row, r.workload)
		}
		if !r.measured {
			failed = true
			row = append(row, fmt.Sprintf("0 of %d ‡", r.leftOut))
			for len(row) < len(cols) {
				row = append(row, "")
			}
			sum.Rows = append(sum.Rows, row)
			continue
		}
		reps := strconv.Itoa(r.repeats)
		if r.interrupted {
			reps += " interrupted"
			interrupted = true
		}
		if r.leftOut > 0 {
			reps += fmt.Sprintf(" of %d ‡", r.repeats+r.leftOut)
			failed = true
		}
		rate := optPm(r.rate, 0)
		if r.unstable {
			rate += " *"
			unstable = true
		}
		if r.bound {
			rate += " †"
			bound = true
		}
		row = append(row, reps, rate, optPm(r.mib, 2), r.latency(r.p50), r.latency(r.p95), r.latency(r.p99), r.latency(r.p999))
		if hasE2E {
			row = append(row, optPm(r.e2e, 1))
		}
		if hasConsume {
			row = append(row, optPm(r.consume, 0))
		}
		sum.Rows = append(sum.Rows, row)
	}
	for _, sc := range run.Scenarios {
		if a := sc.Aggregate; a != nil && a.ShortSteady {
			sum.Notes = append(sum.Notes, fmt.Sprintf("Warning (%s): %s.", sc.Name, result.ShortSteadyAdvice(a.ShortestSteadySeconds)))
		}
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if c := w.CatchUp; c != nil {
					drain := "never caught up"
					if c.DrainSeconds > 0 {
						drain = fmt.Sprintf("read the backlog of %d records in %.1f s (%.0f records/s)", c.Records, c.DrainSeconds, c.RecordsPerSec)
					}
					drain += drainOfPartitions(c)
					sum.Notes = append(sum.Notes, fmt.Sprintf("Catch-up read (%s, repeat %d, %s): started %.0f s after the producers, %s; producers' latency meanwhile %.1f ms on average, %.1f ms at most.",
						sc.Name, rep.Index, w.Name, c.StartedAfterSeconds, drain, c.ProducerAvgLatencyMs, c.ProducerMaxLatencyMs))
				}
				if w.Producer != nil {
					sum.Notes = append(sum.Notes, plateauNotes(sc.Name, rep.Index, w.Name, w.Producer.Plateaus)...)
				}
				if m := w.MaxRate; m != nil {
					sum.Notes = append(sum.Notes, fmt.Sprintf("Rate search (%s, repeat %d, %s): %s.", sc.Name, rep.Index, w.Name, maxRateNote(m)))
				}
				if w.Consumer != nil && w.Consumer.Share != nil {
					sum.Notes = append(sum.Notes, fmt.Sprintf("Share group (%s, repeat %d, %s): %s.", sc.Name, rep.Index, w.Name, shareNote(w.Consumer.Share)))
				}
				if note := balancedNote(w.Producer); note != "" {
					sum.Notes = append(sum.Notes, fmt.Sprintf("Balanced rate (%s, repeat %d, %s): %s.", sc.Name, rep.Index, w.Name, note))
				}
			}
		}
	}
	sum.Footnotes = append(sum.Footnotes, "Each figure is the mean ± the standard deviation over the repeats that ended ok. "+
		"Records/s and MB/s add up the producing workloads of a repeat, when they ran at the same time (phases run one after the other get no total rate); MB is 1024 × 1024 bytes of record values, as in the Apache tools. "+
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
	if interrupted {
		sum.Footnotes = append(sum.Footnotes, "interrupted: no repeat of the scenario ended ok; its figures are what the interrupted repeat measured until it was stopped, a shorter run than the plan asked for.")
	}
	if split {
		sum.Footnotes = append(sum.Footnotes, "Workloads that measure the same figures have a row each: their latencies are never merged. "+
			"The total row adds up the records/s and MB/s of the producing workloads and the consumed/s of the consume workloads it names.")
	}
	return sum, nil
}

// plateauNotes says what a ramp of virtual users measured on each plateau,
// with Little's law's check.
func plateauNotes(scenario string, repeat int, workload string, pls []result.Plateau) []string {
	var out []string
	for _, p := range pls {
		out = append(out, fmt.Sprintf("Plateau of %d virtual users (%s, repeat %d, %s), %.0f–%.0f s: %.0f records/s, p50 %.2f ms, p99 %.2f ms; "+
			"Little's law: %.0f records/s × %.2f ms mean latency = %.2f users busy of %d (%.0f%%; the time between an acknowledgement and a user's next send is not latency).",
			p.VUs, scenario, repeat, workload, p.FromSeconds, p.ToSeconds, p.RecordsPerSec, p.P50Ms, p.P99Ms,
			p.RecordsPerSec, p.MeanMs, p.LittleUsers, p.VUs, 100*p.LittleRatio))
	}
	return out
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

// pm is a figure of the summary table: the mean over repeats (units.Figure:
// 0.0048 MB/s is not printed 0.00), ± the standard deviation with the
// mean's decimals when repeats differ.
func pm(s result.Stats, prec int) string {
	prec = units.FigureDecimals(s.Mean, prec)
	if s.N > 1 {
		return num(s.Mean, prec) + " ± " + num(s.Stdev, prec)
	}
	return num(s.Mean, prec)
}

// noSamples reports whether the row's latencies have no sample: no record
// was acknowledged in any repeat, and the 0 they hold is no latency.
func (r row) noSamples() bool { return r.records != nil && r.records.Max == 0 }

// latency is a latency cell of the table: "–" with no sample.
func (r row) latency(s *result.Stats) string {
	if s != nil && r.noSamples() {
		return "–"
	}
	return optPm(s, 1)
}

// recordsNum is summary.csv's records: the mean over the repeats, from
// their exact sum when the result has it (a float64 rounded counts past
// 2^53: 9007199254740993 records were written 9007199254740992), rounded
// to a whole record as before (half to even).
func (r row) recordsNum() string {
	if r.records == nil || r.recordsTotal == nil || r.records.N <= 0 {
		return optNum(r.records, 0)
	}
	n := int64(r.records.N)
	q, rem := *r.recordsTotal/n, *r.recordsTotal%n
	if 2*rem > n || 2*rem == n && q%2 == 1 {
		q++
	}
	return strconv.FormatInt(q, 10)
}

// latencyNum is a latency of summary.csv: empty with no sample.
func (r row) latencyNum(s *result.Stats) string {
	if r.noSamples() {
		return ""
	}
	return optNum(s, 3)
}

func optPm(s *result.Stats, prec int) string {
	if s == nil {
		return ""
	}
	return pm(*s, prec)
}

// maxPlanFile bounds an older result's plan.yaml (plan.MaxFile).
const maxPlanFile = 16 << 20

// WriteAll writes summary.md, summary.csv and report.html into dir, each
// through outfile.Write (atomic and synced), so a reader never sees half a
// report. All three are rendered before any is written: a result that
// cannot be reported changes nothing in dir. report.html shows the plan
// as run: from result.json, or for an older result the folder's plan.yaml.
func WriteAll(dir string, doc *result.Document) error {
	var in HTMLInput
	if doc.Plan != nil && doc.Plan.PlanYAML != "" {
		in.PlanYAML = doc.Plan.PlanYAML
	} else if b, err := infile.Read(filepath.Join(dir, "plan.yaml"), maxPlanFile, "a plan"); err == nil {
		in.PlanYAML = string(b)
	}
	files := []struct {
		name  string
		write func(io.Writer, *result.Document) error
		out   bytes.Buffer
	}{
		{name: "summary.md", write: WriteSummaryMarkdown},
		{name: "summary.csv", write: WriteSummaryCSV},
		{name: "report.html", write: func(w io.Writer, doc *result.Document) error { return WriteHTML(w, doc, in) }},
	}
	for i := range files {
		if err := files[i].write(&files[i].out, doc); err != nil {
			return fmt.Errorf("write %s: %w", files[i].name, err)
		}
	}
	for i := range files {
		f := &files[i]
		if err := outfile.Write(filepath.Join(dir, f.name), func(w io.Writer) error { _, err := w.Write(f.out.Bytes()); return err }); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

// drainOfPartitions says, for a catch-up read of several partitions, when
// the last one caught up: drain_seconds is the first's.
func drainOfPartitions(c *result.CatchUp) string {
	switch {
	case c.Partitions <= 1 || c.DrainSeconds == 0:
		return ""
	case c.LastDrainSeconds > 0:
		return fmt.Sprintf(" in its first partition; all %d partitions in %.1f s (%d records)", c.Partitions, c.LastDrainSeconds, c.LastRecords)
	default:
		return fmt.Sprintf(" in its first partition; only %d of its %d partitions ever caught up", c.PartitionsCaughtUp, c.Partitions)
	}
}

// balancedNote says where OMB's balanced-rate search (rate: balanced)
// went: its start, its last rate and its highest, over all its producers.
func balancedNote(p *result.Producer) string {
	if p == nil || len(p.BalancedRates) == 0 {
		return ""
	}
	rs := p.BalancedRates
	top := rs[0]
	for _, r := range rs {
		if r.Rate > top.Rate {
			top = r
		}
	}
	last := rs[len(rs)-1]
	return fmt.Sprintf("from %.0f records/s, %d adjustments every 3 s, the last to %.0f records/s at %.0f s (highest %.0f at %.0f s), over all its producers",
		rs[0].Rate, len(rs)-1, last.Rate, last.ElapsedSeconds, top.Rate, top.ElapsedSeconds)
}

// shareNote says what a share group's members did with their deliveries,
// and what the verification found.
func shareNote(sh *result.Share) string {
	note := fmt.Sprintf("%d deliveries: %d accepted, %d released, %d rejected; %d redelivered (%d after a lock ran out), %d archived after their last delivery",
		sh.Deliveries, sh.Accepted, sh.Released, sh.Rejected, sh.Redelivered, sh.LockTimeouts, sh.Archived)
	if sh.Resettled > 0 {
		note += fmt.Sprintf("; %d settled again after an acknowledgement the broker never took (counted once)", sh.Resettled)
	}
	if l := sh.AckLatency; l != nil {
		note += fmt.Sprintf("; acknowledgements answered in %.1f ms (p50), %.1f ms (p99)", float64(l.P50)/1000, float64(l.P99)/1000)
	}
	if v := sh.Verification; v != nil {
		byBroker := ""
		if v.SettledByBroker > 0 {
			byBroker = fmt.Sprintf(" (%d of them archived by the broker, after deliveries no member processed)", v.SettledByBroker)
		}
		switch {
		case v.Partial:
			note += fmt.Sprintf("; interrupted: of the %d records up to the last read, %d unsettled, %d accepted twice%s", v.Records, v.Unsettled, v.AcceptedTwice, byBroker)
		case v.Unsettled == 0 && v.AcceptedTwice == 0:
			note += fmt.Sprintf("; verified: all %d records settled exactly once%s", v.Records, byBroker)
		default:
			note += fmt.Sprintf("; verification FAILED: %d of %d records unsettled, %d accepted twice%s", v.Unsettled, v.Records, v.AcceptedTwice, byBroker)
		}
		if v.BrokerLag != nil && *v.BrokerLag > 0 {
			note += fmt.Sprintf("; the broker still holds %d records unsettled (acknowledgements it never took: they go to the group's next member)", *v.BrokerLag)
		}
	}
	return note
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
