package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/browsertest"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// checkReport opens a real run's report.html in headless Chromium: no
// console errors, no requests, every chart has data; then kbench report
// writes the same reports again from result.json.
func checkReport(t *testing.T, out, name string) {
	t.Helper()
	page := filepath.Join(out, "report.html")
	charts, errs, reqs := browsertest.Open(t, page)
	if len(errs) > 0 || len(reqs) > 0 {
		t.Errorf("report.html: console errors %q, requests %q", errs, reqs)
	}
	if len(charts) < 2 {
		t.Errorf("report.html drew %d charts", len(charts))
	}
	for _, c := range charts {
		if c.Points == 0 {
			t.Errorf("report.html: chart %q has no data", c.Title)
		}
	}
	browsertest.Screenshot(t, page, "report-"+name+".png")

	want := map[string][]byte{}
	for _, f := range []string{"report.html", "summary.md", "summary.csv"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		want[f] = b
		os.Remove(filepath.Join(out, f))
	}
	var stdout, stderr syncBuffer
	st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := runKbench(t, st, "report", out); code != exitOK {
		t.Fatalf("kbench report: exit %d\n%s", code, stderr.String())
	}
	for f, b := range want {
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || string(got) != string(b) {
			t.Errorf("kbench report wrote %s differently from the run (%v)", f, err)
		}
	}
}

// checkSummaryFiles checks a plan run's folder as a reviewer would: one
// summary.csv row per scenario under its header, summary.md naming the
// plan, and the plan as run.
func checkSummaryFiles(t *testing.T, out string, doc *result.Document, scenarios int) {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != scenarios+1 || rows[0][0] != "scenario" {
		t.Fatalf("summary.csv has %d rows (header %q), want a header and %d rows", len(rows), rows[0], scenarios)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(md), doc.Plan.Name) {
		t.Fatalf("summary.md: %v\n%s", err, md)
	}
	if _, err := os.Stat(filepath.Join(out, "plan.yaml")); err != nil {
		t.Fatalf("the plan as run was not written: %v", err)
	}
}

// TestRunPlanInterrupted: Ctrl-C during a plan ends it with exit 130, and
// the results folder holds every repeat measured, status "interrupted".
func TestRunPlanInterrupted(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	topic := uniqueTopic(t, "interrupted")
	if err := os.WriteFile(planFile, []byte(`name: interrupted
topics: [{name: `+topic+`, partitions: 1}]
workloads:
  - {name: p, type: produce, topic: `+topic+`, message: {size: 100}, rate: 2k/s, duration: 2s}
repeat: 10
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	st := &state{stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	interrupt, stop := context.WithCancel(ctx)
	go func() {
		waitFor(t, time.Minute, func() bool { return strings.Contains(stderr.String(), "repeat 2 of 10: running") })
		stop() // Ctrl-C during the second repeat
	}()
	code := run(interrupt, []string{"kbench", "run", planFile, "--out", out, "--set", "cluster.bootstrap=" + bootstrap}, st)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, stderr)
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	reps := doc.Plan.Scenarios[0].Repeats
	if doc.Status != result.StatusInterrupted || len(reps) != 2 || reps[0].Status != result.StatusOK || reps[1].Status != result.StatusInterrupted {
		t.Fatalf("status %q with %d repeats; want interrupted, the first ok and the second interrupted", doc.Status, len(reps))
	}
	if md, err := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || !strings.Contains(string(md), "interrupted") {
		t.Fatalf("summary.md: %v\n%s", err, md)
	}
}

// TestRunPlanThresholds: a crossed threshold exits 99 with everything
// written, and says which; thresholds that hold exit 0.
func TestRunPlanThresholds(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	for _, tt := range []struct {
		name, thresholds string
		code             int
		passed, failed   int
	}{
		{"crossed", `{errors: "== 0", records_per_sec: ">= 1G", p99_ms: "< 60000"}`, exitThresholds, 2, 1},
		{"held", `{errors: "== 0", p99_ms: "< 60000"}`, exitOK, 2, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			topic := uniqueTopic(t, "thresholds")
			planFile := filepath.Join(dir, "plan.yaml")
			if err := os.WriteFile(planFile, []byte(`name: thresholds
cluster: {bootstrap: `+bootstrap+`}
topics: [{name: `+topic+`, partitions: 1}]
workloads:
  - {name: p, type: produce, topic: `+topic+`, message: {size: 100}, rate: 2k/s, records: 1000, thresholds: `+tt.thresholds+`}
`), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			var stdout, stderr syncBuffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			if code := runKbench(t, st, "run", planFile, "--out", out); code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, stderr.String())
			}
			doc, err := result.Read(filepath.Join(out, "result.json"))
			if err != nil {
				t.Fatal(err)
			}
			passed, failed := 0, 0
			for _, th := range doc.Plan.Scenarios[0].Thresholds {
				if th.Passed {
					passed++
				} else {
					failed++
				}
			}
			if passed != tt.passed || failed != tt.failed {
				t.Errorf("thresholds passed %d, failed %d; want %d and %d: %+v", passed, failed, tt.passed, tt.failed, doc.Plan.Scenarios[0].Thresholds)
			}
			md, err := os.ReadFile(filepath.Join(out, "summary.md"))
			if err != nil || !strings.Contains(string(md), "## Thresholds") {
				t.Fatalf("summary.md lacks the thresholds: %v\n%s", err, md)
			}
			if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
				t.Fatal(err)
			}
			if tt.failed > 0 && !strings.Contains(stderr.String(), "threshold failed: thresholds, p: records_per_sec >= 1G, measured") {
				t.Errorf("stderr does not name the failed threshold:\n%s", stderr.String())
			}
		})
	}
}

// TestRunPlanResultFolder: regressions: `kbench report result.json` away
// from its folder dropped the plan as run (result.json now carries it);
// result.json and the reports were 0600 beside a plan.yaml of 0644; and
// `run --help` did not list report.html.
func TestRunPlanResultFolder(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	topic := uniqueTopic(t, "folder")
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(`name: folder # the plan as run
cluster: {bootstrap: `+bootstrap+`}
topics: [{name: `+topic+`, partitions: 1}]
workloads:
  - {name: p, type: produce, topic: `+topic+`, message: {size: 100}, rate: 2k/s, records: 200}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr syncBuffer
	st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := runKbench(t, st, "run", planFile, "--out", out); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	asRun, err := os.ReadFile(filepath.Join(out, "plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Plan.PlanYAML != string(asRun) {
		t.Errorf("result.json's plan_yaml %q, want plan.yaml's %q", doc.Plan.PlanYAML, asRun)
	}
	want, _ := os.Stat(filepath.Join(out, "plan.yaml"))
	for _, f := range []string{"result.json", "summary.md", "summary.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Mode() != want.Mode() {
			t.Errorf("%s: %v, mode %v; want plan.yaml's %v", f, err, fi.Mode(), want.Mode())
		}
	}
	// The result.json alone, reported elsewhere.
	alone := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(out, "result.json"))
	if err := os.WriteFile(filepath.Join(alone, "result.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := runKbench(t, st, "report", filepath.Join(alone, "result.json")); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr.String())
	}
	if html, _ := os.ReadFile(filepath.Join(alone, "report.html")); !strings.Contains(string(html), "topics: [{name: "+topic) {
		t.Error("report.html of a result.json alone lacks the plan as run")
	}
	var help syncBuffer
	hst := &state{stdout: &help, stderr: &help, getenv: func(string) string { return "" }}
	if code := runKbench(t, hst, "run", "--help"); code != exitOK || !strings.Contains(help.String(), "report.html") {
		t.Errorf("run --help (exit %d) does not list report.html:\n%s", code, help.String())
	}
}
