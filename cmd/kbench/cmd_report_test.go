package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

func TestReportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	drop := filepath.Join(dir, "producer.json")
	doc := result.New(result.KindProducerPerf, "test", time.Now(), nil)
	doc.Finish(nil)
	if err := result.Write(drop, doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg, want string
	}{
		{filepath.Join(dir, "missing"), "give a results folder"},
		{dir, "result.json"}, // a folder without one
		{drop, "reports are written for study plans"},
	}
	for _, tt := range tests {
		var stdout, stderr syncBuffer
		st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		if code := runKbench(t, st, "report", tt.arg); code != exitUsage {
			t.Errorf("report %s: exit %d, want %d", filepath.Base(tt.arg), code, exitUsage)
		}
		if !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("report %s: stderr %q lacks %q", filepath.Base(tt.arg), stderr.String(), tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("a failed report wrote report.html")
	}
}

// TestReportDamagedResult: regression: histograms left empty in result.json
// panicked `kbench report` (slice bounds in the decoder), and a damaged one
// exited 1 after summary.md and summary.csv had been rewritten; figures no
// run can have (a negative p99, a 1e308 rate) were reported. A damaged
// result is the user's input: exit 2, the field named, nothing written.
func TestReportDamagedResult(t *testing.T) {
	lat := func(values ...int64) result.Latency {
		h := measure.NewHistogram()
		for _, v := range values {
			h.Record(v)
		}
		l, err := result.LatencyOf(h)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	sc := result.Scenario{Index: 1, Name: "acks=all", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK,
		Workloads: []result.Workload{{Name: "p", Type: "produce", Producer: &result.Producer{Records: 2, DurationSeconds: 1, RecordsPerSec: 2, Latency: lat(1000, 2000)}}}}}}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0), nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "acks", Repeat: 1, Scenarios: []result.Scenario{sc}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		replace func(string) string
		want    string
	}{
		{"empty histograms", func(s string) string {
			return regexp.MustCompile(`"histogram":"[^"]*"`).ReplaceAllString(s, `"histogram":""`)
		}, "plan.scenarios[0].repeats[0].workloads[0].producer.latency.histogram: histogram is empty but count is 2"},
		{"corrupted histogram", func(s string) string {
			return strings.Replace(s, `"histogram":"HISTFAAAA`, `"histogram":"HISTFAAAB`, 1)
		}, "plan.scenarios[0].repeats[0].workloads[0].producer.latency.histogram: decode histogram"},
		// Figures no run can have were judged ("p99 −100%, better").
		{"negative p99", func(s string) string {
			return strings.Replace(s, `"p99":2000`, `"p99":-2000`, 1)
		}, "plan.scenarios[0].repeats[0].workloads[0].producer.latency.p99 is -2000 µs: a latency cannot be negative"},
		{"1e308 rate", func(s string) string {
			return strings.Replace(s, `"records_per_sec":2`, `"records_per_sec":1e308`, 1)
		}, "plan.scenarios[0].repeats[0].workloads[0].producer.records_per_sec is 1e+308: more than kbench measures"},
		{"NaN", func(s string) string {
			return strings.Replace(s, `"records_per_sec":2`, `"records_per_sec":NaN`, 1)
		}, "plan.scenarios[0].repeats[0].workloads[0].producer.records_per_sec at byte "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			damaged := tt.replace(string(b))
			if damaged == string(b) {
				t.Fatal("the test did not damage the result")
			}
			if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(damaged), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr syncBuffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			if code := runKbench(t, st, "report", dir); code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d files in the folder, want result.json alone", len(entries))
			}
		})
	}
}
