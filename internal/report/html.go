package report

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/result"
)

// uPlot draws the charts: 50 KB, no dependencies, fast on series of
// hundreds of thousands of points, and it works from a file:// page with
// nothing fetched (k6's report uses it too). Vendored from the npm package
// uplot 1.6.32 (MIT, see assets/uPlot.LICENSE).
var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.css
	reportCSS string
	//go:embed assets/report.html.tmpl
	reportTmpl string
)

var htmlTemplate = template.Must(template.New("report").Parse(reportTmpl))

// compressAbove is the size of chart data above which the page carries it
// gzipped (base64) and inflates it with the browser's DecompressionStream:
// long runs have long series.
const compressAbove = 256 << 10

// HTMLInput is what report.html shows besides the result: the plan as run
// (plan.yaml of the results folder), when there is one.
type HTMLInput struct {
	PlanYAML string
}

type htmlPage struct {
	Title       string
	Description string
	Doc         *result.Document
	Env         *result.Environment
	Summary     *summary
	SummaryText []bool // the summary's columns of words (swept values, workload)
	Context     []kv
	Warnings    []string
	Clients     []clientConfig
	PlanYAML    string
	Thresholds  []result.ThresholdResult
	Tables      []tableView // faults and verification
	UPlotJS     template.JS
	UPlotCSS    template.CSS
	ReportJS    template.JS
	ReportCSS   template.CSS
	// Data is the chart data as a JavaScript literal: JSON, or a base64
	// string of gzipped JSON when Compressed.
	Data       template.JS
	Compressed bool
	// Warmup: some workload had a warm-up, which the time charts shade
	// (the page explains the band only then).
	Warmup bool
}

type kv struct{ Key, Value string }

// tableView is a table as the page shows it: Text marks the columns of
// words (a fault's name, its status), which wrap, left-aligned, so the
// faults table fits the page; figures stay on one line, right-aligned.
type tableView struct {
	*table
	Text []bool
}

// htmlTables are the tables report.html shows under its charts, as
// summary.md has them.
func htmlTables(run *result.PlanRun) []*table {
	ts := append(faultTableList(run), sectionTables(run)...)
	if t := schemaTable(run); t != nil {
		ts = append(ts, t)
	}
	if t := maxRateTable(run); t != nil {
		ts = append(ts, t)
	}
	if t := brokerTable(run); t != nil {
		ts = append(ts, t)
	}
	if t := tierTable(run); t != nil {
		ts = append(ts, t)
	}
	if t := watchedTable(run); t != nil {
		ts = append(ts, t)
	}
	if t := settlingTable(run); t != nil {
		ts = append(ts, t)
	}
	return append(ts, workersTables(run)...)
}

func tableViews(ts []*table) []tableView {
	out := make([]tableView, len(ts))
	for i, t := range ts {
		out[i] = tableView{table: t, Text: wordColumns(t.Columns, t.Rows, len(t.Columns))}
	}
	return out
}

// textColumns marks the summary's columns of words among those before
// its figures (the swept values and the workload).
func textColumns(s *summary) []bool {
	n := len(s.Columns)
	for j, c := range s.Columns {
		if c == "repeats" {
			n = j
		}
	}
	return wordColumns(s.Columns, s.Rows, n)
}

// wordColumns marks each of the first n columns holding a cell that is no
// figure.
func wordColumns(cols []string, rows [][]string, n int) []bool {
	text := make([]bool, len(cols))
	for j := range n {
		for _, row := range rows {
			if j < len(row) && !figure(row[j]) {
				text[j] = true
				break
			}
		}
	}
	return text
}

// figure says whether a cell is a number (or the dash of one not
// measured), with or without a mark a note explains (12.3 §).
func figure(s string) bool {
	if s == "–" || s == "" {
		return true
	}
	for _, mark := range []string{" *", " †", " ‡", " §"} {
		s = strings.TrimSuffix(s, mark)
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

type clientConfig struct {
	Workload string
	Props    []kv
}

// WriteHTML writes report.html: one self-contained page (scripts, styles
// and data inlined) with the context of the run, the summary table and the
// charts.
func WriteHTML(w io.Writer, doc *result.Document, in HTMLInput) error {
	run := doc.Plan
	if run == nil {
		return fmt.Errorf("report: not a plan run's result")
	}
	sum, err := summarize(doc)
	if err != nil {
		return err
	}
	charts, err := buildCharts(run)
	if err != nil {
		return fmt.Errorf("report: chart data: %w", err)
	}
	data, err := json.Marshal(charts)
	if err != nil {
		return fmt.Errorf("report: encode chart data: %w", err)
	}
	page := htmlPage{
		Title: run.Name, Description: run.Description, Doc: doc, Env: run.Environment,
		Summary: sum, SummaryText: textColumns(sum), Context: runContext(doc), Warnings: warnings(run), Clients: clientConfigs(run),
		PlanYAML: in.PlanYAML, Thresholds: thresholdResults(run), Tables: tableViews(htmlTables(run)),
		UPlotJS: template.JS(uplotJS), UPlotCSS: template.CSS(uplotCSS),
		ReportJS: template.JS(reportJS), ReportCSS: template.CSS(reportCSS),
		Data: template.JS(data), Warmup: hasWarmup(run),
	}
	if len(data) > compressAbove {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return fmt.Errorf("report: compress chart data: %w", err)
		}
		// A JSON string literal of base64: safe inside a script element.
		page.Data = template.JS(`"` + base64.StdEncoding.EncodeToString(buf.Bytes()) + `"`)
		page.Compressed = true
	}
	return htmlTemplate.Execute(w, page)
}

func runContext(doc *result.Document) []kv {
	run := doc.Plan
	ctx := []kv{
		{"Status", doc.Status},
		{"Started", doc.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")},
		{"Took", doc.EndedAt.Sub(doc.StartedAt).Round(1e9).String()},
		{"kbench", doc.KbenchVersion},
		{"Scenarios", fmt.Sprintf("%d, %d repeat(s) each", len(run.Scenarios), run.Repeat)},
	}
	if len(run.Parameters) > 0 {
		ctx = append(ctx, kv{"Swept", strings.Join(run.Parameters, ", ")})
	}
	if doc.Error != "" {
		ctx = append(ctx, kv{"Error", doc.Error})
	}
	if env := run.Environment; env != nil {
		cluster := env.Cluster
		if env.KafkaVersion != "" {
			cluster += ", Apache Kafka " + env.KafkaVersion
		}
		ctx = append(ctx, kv{"Cluster", cluster})
		if env.NetworkProxies {
			ctx = append(ctx, kv{"Network", ProxiesNote})
		}
		if len(env.BrokerVersions) > 0 {
			brokers := "answering as " + strings.Join(uniq(env.BrokerVersions), ", ")
			if env.Brokers > 0 {
				brokers = fmt.Sprintf("%d, %s", env.Brokers, brokers)
			}
			ctx = append(ctx, kv{"Brokers", brokers})
		}
		machine := fmt.Sprintf("%d CPUs, GOMAXPROCS %d", env.CPUs, env.GoMaxProcs)
		if env.OS != "" {
			machine += ", " + env.OS + "/" + env.Arch
		}
		ctx = append(ctx, kv{"Client machine", machine})
	}
	if topics := topicShapes(run); topics != "" {
		ctx = append(ctx, kv{"Topics", topics})
	}
	return ctx
}

// topicShapes lists the distinct topic shapes the workloads used.
func topicShapes(run *result.PlanRun) string {
	seen := map[string]bool{}
	var out []string
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if t := w.Topic; t != nil {
					s := fmt.Sprintf("%d partition(s)", t.Partitions)
					if t.ReplicationFactor > 0 {
						s += fmt.Sprintf(", replication factor %d", t.ReplicationFactor)
					}
					if !seen[s] {
						seen[s] = true
						out = append(out, s)
					}
				}
			}
		}
	}
	return strings.Join(out, "; ")
}

func warnings(run *result.PlanRun) []string {
	var out []string
	for _, sc := range run.Scenarios {
		if a := sc.Aggregate; a != nil && a.GeneratorBound {
			for _, r := range a.GeneratorReasons {
				out = append(out, fmt.Sprintf("%s: generator-bound: %s", sc.Name, r))
			}
			if len(a.GeneratorReasons) == 0 {
				out = append(out, sc.Name+": generator-bound")
			}
		}
		if a := sc.Aggregate; a != nil && a.ShortSteady {
			out = append(out, sc.Name+": "+result.ShortSteadyAdvice(a.ShortestSteadySeconds))
		}
		if a := sc.Aggregate; a != nil && a.Unstable {
			out = append(out, fmt.Sprintf("%s: unstable: records/s varied by %.0f%% (coefficient of variation) between repeats", sc.Name, 100*a.RecordsPerSec.CV))
		}
		for _, rep := range sc.Repeats {
			if rep.Status != result.StatusOK {
				msg := fmt.Sprintf("%s, repeat %d: %s", sc.Name, rep.Index, rep.Status)
				if rep.Error != "" {
					msg += ": " + rep.Error
				}
				out = append(out, msg)
			}
		}
	}
	return out
}

// clientConfigs gives each workload's client properties once (from its
// first repeat): they are the same in every repeat of a scenario, and the
// swept ones are in the table.
func clientConfigs(run *result.PlanRun) []clientConfig {
	var out []clientConfig
	seen := map[string]bool{}
	for _, sc := range run.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if len(w.Config) == 0 {
					continue
				}
				var b strings.Builder
				for _, k := range sortedKeys(w.Config) {
					b.WriteString(k + "=" + w.Config[k] + "\n")
				}
				key := w.Name + "\x00" + b.String()
				if seen[key] {
					continue
				}
				seen[key] = true
				cc := clientConfig{Workload: w.Name}
				if len(run.Scenarios) > 1 {
					cc.Workload = sc.Name + ": " + w.Name
				}
				for _, k := range sortedKeys(w.Config) {
					cc.Props = append(cc.Props, kv{k, w.Config[k]})
				}
				out = append(out, cc)
			}
			break
		}
	}
	return out
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// thresholdResults lists every threshold checked, scenario by scenario.
func thresholdResults(run *result.PlanRun) []result.ThresholdResult {
	var out []result.ThresholdResult
	for _, sc := range run.Scenarios {
		out = append(out, sc.Thresholds...)
	}
	return out
}
