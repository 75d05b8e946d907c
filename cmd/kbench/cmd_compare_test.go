package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// compareDir writes a plan run of one scenario, "acks=all", measured once
// at rps records/s and p99 ms, into a results folder of its own.
func compareDir(t *testing.T, rps, p99 float64) string {
	t.Helper()
	dir := t.TempDir()
	one := func(x float64) result.Stats { return result.Describe([]float64{x}) }
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0), nil)
	doc.Status = result.StatusOK
	doc.Plan = &result.PlanRun{Name: "acks", Repeat: 1, Scenarios: []result.Scenario{{Name: "acks=all", Aggregate: &result.Aggregate{
		Repeats: 1, RecordsPerSec: one(rps), MiBPerSec: one(rps / 1000),
		P50Ms: one(p99 / 2), P95Ms: one(p99), P99Ms: one(p99), P999Ms: one(p99), MaxMs: one(p99),
	}}}}
	if err := result.Write(filepath.Join(dir, "result.json"), doc); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCompareCmd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       func(a, b, out string) []string
		wantCode   int
		wantOut    []string // substrings of stdout
		wantStderr []string // substrings of stderr
		wantFiles  string   // "a", "b" or "out": where compare.md and compare.html go; "" for none
	}{
		{
			name: "not crossed",
			args: func(a, b, _ string) []string {
				return []string{a, b, "--fail-if", "p99_ms>+25%", "--fail-if", "records_per_sec<-5%"}
			},
			wantCode:  exitOK,
			wantOut:   []string{"| acks=all | p99_ms | 10.000 | 12.000 | +20.0% | worse (1 repeat: spread unknown) |", "| acks=all | records_per_sec | 1000.0 | 1100.0 | +10.0% | better"},
			wantFiles: "b",
		},
		{
			name:     "crossed",
			args:     func(a, b, _ string) []string { return []string{a, b, "--fail-if", "p99_ms>+10%"} },
			wantCode: exitFailure,
			wantOut:  []string{"| acks=all | p99_ms |"},
			wantStderr: []string{"kbench: 1 --fail-if crossing(s):",
				"scenario acks=all: p99_ms changed +20.0% (10.000 → 12.000 ms), crossing --fail-if p99_ms>+10%"},
			wantFiles: "b",
		},
		{
			name: "result files and --out",
			args: func(a, b, out string) []string {
				return []string{filepath.Join(a, "result.json"), filepath.Join(b, "result.json"), "--out", out}
			},
			wantCode:  exitOK,
			wantFiles: "out",
		},
		{
			name:       "bad rule",
			args:       func(a, b, _ string) []string { return []string{a, b, "--fail-if", "p99_ms>+10"} },
			wantCode:   exitUsage,
			wantStderr: []string{`kbench: --fail-if "p99_ms>+10": +10 is signed, as a change is; write +10% for a change from A, or 10 for B's own value in ms`},
		},
		{
			name:       "absolute rule crossed",
			args:       func(a, b, _ string) []string { return []string{a, b, "--fail-if", "p99_ms>10"} },
			wantCode:   exitFailure,
			wantStderr: []string{"scenario acks=all: p99_ms is 12.000 ms in B, crossing --fail-if p99_ms>10"},
			wantFiles:  "b",
		},
		{
			name:       "unknown metric",
			args:       func(a, b, _ string) []string { return []string{a, b, "--fail-if", "p99>+10%"} },
			wantCode:   exitUsage,
			wantStderr: []string{`unknown metric "p99"; did you mean "p99_ms"?`},
		},
		{
			name:       "metric neither measured",
			args:       func(a, b, _ string) []string { return []string{a, b, "--fail-if", "e2e_p99_ms>+10%"} },
			wantCode:   exitUsage,
			wantStderr: []string{`--fail-if "e2e_p99_ms>+10%": neither result measured end-to-end latency`},
		},
		{
			name:       "no result",
			args:       func(_, b, out string) []string { return []string{out, b} },
			wantCode:   exitUsage,
			wantStderr: []string{"no result.json in this folder"},
		},
		{
			name:       "one argument",
			args:       func(a, _, _ string) []string { return []string{a} },
			wantCode:   exitUsage,
			wantStderr: []string{"kbench: compare: takes two results, A and B, each a results folder or a result file; got 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b, out := compareDir(t, 1000, 10), compareDir(t, 1100, 12), t.TempDir()
			var stdout, stderr bytes.Buffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, cacheDir: t.TempDir()}
			code := run(context.Background(), append([]string{"kbench", "compare"}, tt.args(a, b, out)...), st)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout.String(), stderr.String())
			}
			for _, s := range tt.wantOut {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tt.wantStderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			for where, dir := range map[string]string{"a": a, "b": b, "out": out} {
				for _, name := range []string{"compare.md", "compare.html"} {
					_, err := os.Stat(filepath.Join(dir, name))
					if written := err == nil; written != (where == tt.wantFiles) {
						t.Errorf("%s in %s: written %v, want %v", name, where, written, where == tt.wantFiles)
					}
				}
			}
		})
	}
}

// TestCompareCmdImpossibleResult: regression: compare gave verdicts on
// figures no run can have ("p99 −100%, better" for a negative p99, a
// 1e308 rate): such a result is the user's input, refused with exit 2,
// the field named, nothing written.
func TestCompareCmdImpossibleResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rps, p99 float64
		want     string
	}{
		{"negative p99", 1100, -12, "plan.scenarios[0].aggregate.p50_ms.mean is -6: it cannot be negative"},
		{"1e308 rate", 1e308, 12, "plan.scenarios[0].aggregate.records_per_sec.mean is 1e+308: more than kbench measures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := compareDir(t, 1000, 10), compareDir(t, tt.rps, tt.p99)
			var stdout, stderr bytes.Buffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, cacheDir: t.TempDir()}
			if code := run(context.Background(), []string{"kbench", "compare", a, b}, st); code != exitUsage {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitUsage, stderr.String())
			}
			if want := filepath.Join(b, "result.json"); !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr lacks %q and %q:\n%s", want, tt.want, stderr.String())
			}
			if _, err := os.Stat(filepath.Join(b, "compare.md")); err == nil {
				t.Error("compare.md written")
			}
		})
	}
}

// failedDir writes a plan run of one scenario, "acks=all", whose repeats
// all failed: each lost records (verified) after a kill.
func failedDir(t *testing.T, repeats int, status string, lost int64) string {
	t.Helper()
	dir := t.TempDir()
	sc := result.Scenario{Name: "acks=all"}
	for i := range repeats {
		e := 8000.0
		sc.Repeats = append(sc.Repeats, result.Repeat{Index: i + 1, Status: status,
			Faults:       []result.Fault{{Name: "kill", Action: "kill", ElectionMs: &e, Status: "done"}},
			Verification: []result.Verification{{Workload: "writer", Acks: "all", Lost: lost, Passed: lost == 0}}})
	}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0), nil)
	doc.Status = status
	doc.Plan = &result.PlanRun{Name: "acks", Repeat: repeats, Scenarios: []result.Scenario{sc}}
	if err := result.Write(filepath.Join(dir, "result.json"), doc); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompareCmdFailedB: regression: when every B repeat failed,
// --fail-if 'errors>+0%' exited 2 ("only A measured errors") instead of 1,
// and 'lost>0' was an unknown metric: a CI gate passed nothing through.
func TestCompareCmdFailedB(t *testing.T) {
	t.Parallel()
	for _, rule := range []string{"errors>+0%", "lost>0"} {
		t.Run(rule, func(t *testing.T) {
			t.Parallel()
			a, b := failedDir(t, 2, result.StatusOK, 0), failedDir(t, 2, result.StatusFailed, 12)
			var stdout, stderr bytes.Buffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, cacheDir: t.TempDir()}
			if code := run(context.Background(), []string{"kbench", "compare", a, b, "--fail-if", rule}, st); code != exitFailure {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailure, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), "crossing --fail-if "+rule) {
				t.Errorf("stderr lacks the crossing:\n%s", stderr.String())
			}
		})
	}
}
