package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/study"
)

// unreachablePlan writes a plan whose cluster refuses connections at once:
// a run fails fast (exit 1) after writing its results.
func unreachablePlan(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(`name: `+name+`
cluster: {bootstrap: "127.0.0.1:1"}
topics: [{name: t, partitions: 1}]
workloads:
  - {name: p, type: produce, topic: t, message: {size: 10}, records: 10}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunOutFolderTaken: regression: two runs into one --out, or --out
// over an earlier run's folder, overwrote the results silently. A folder
// another run holds is refused with its process id, one holding a
// result.json is refused unless --overwrite (exit 2, nothing touched).
func TestRunOutFolderTaken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	planFile := unreachablePlan(t, dir, "second")
	earlier := &result.Document{Kind: result.KindPlan, Status: result.StatusOK, Plan: &result.PlanRun{Name: "earlier"}}

	tests := []struct {
		name  string
		setup func(t *testing.T, out string)
		args  []string
		code  int
		want  string
		plan  string // the plan name result.json must hold afterwards
	}{
		{"held by another run", func(t *testing.T, out string) {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			unlock, err := outfile.Lock(out)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(unlock)
		}, nil, exitUsage, fmt.Sprintf("is in use by another kbench run (process %d)", os.Getpid()), ""},
		{"earlier results", func(t *testing.T, out string) {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := result.Write(filepath.Join(out, "result.json"), earlier); err != nil {
				t.Fatal(err)
			}
		}, nil, exitUsage, "holds the results of an earlier run (result.json); give another --out folder, or add --overwrite", "earlier"},
		{"earlier results, --overwrite", func(t *testing.T, out string) {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := result.Write(filepath.Join(out, "result.json"), earlier); err != nil {
				t.Fatal(err)
			}
		}, []string{"--overwrite"}, exitFailure, study.EarlierRunDir + " until this run's are written", "second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			tt.setup(t, out)
			st, _, stderr := consumerTestState()
			args := append([]string{"run", planFile, "--out", out}, tt.args...)
			if code := runKbench(t, st, args...); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, want %d and %q in stderr:\n%s", code, tt.code, tt.want, stderr)
			}
			if tt.plan != "" {
				doc, err := result.Read(filepath.Join(out, "result.json"))
				if err != nil || doc.Plan == nil || doc.Plan.Name != tt.plan {
					t.Fatalf("result.json after the run: %v, %+v; want plan %q's", err, doc, tt.plan)
				}
			}
		})
	}
}

// TestRunOutFolderReleased: a run removes its lock when it ends, so the
// next run with --overwrite may use the folder (the default folders of two
// runs started within the same second: study.TestNewDefaultOutDir).
func TestRunOutFolderReleased(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	planFile := unreachablePlan(t, dir, "released")
	out := filepath.Join(dir, "out")
	for i, args := range [][]string{{}, {"--overwrite"}} {
		st, _, stderr := consumerTestState()
		if code := runKbench(t, st, append([]string{"run", planFile, "--out", out}, args...)...); code != exitFailure {
			t.Fatalf("run %d: exit %d, want %d (unreachable broker):\n%s", i+1, code, exitFailure, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, outfile.LockName)); !os.IsNotExist(err) {
			t.Fatalf("run %d left its lock file: %v", i+1, err)
		}
	}
}
