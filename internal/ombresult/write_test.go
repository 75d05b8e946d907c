package ombresult

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestWriteAll: the first scenario's first repeat is omb-result.json (and
// --omb-result's file), every other repeat a file of its own, and a repeat
// with no period after its warm-up is said, not written.
func TestWriteAll(t *testing.T) {
	t.Parallel()
	repeat := func(i, seconds int) result.Repeat {
		prod := &result.Producer{Intervals: series(t, t0, seconds, func(int) int64 { return 10 })}
		return result.Repeat{Index: i, Workloads: []result.Workload{{Name: "p", Type: "produce", Producer: prod}}}
	}
	run := testRun()
	run.Consumers = nil
	for _, tc := range []struct {
		name      string
		scenarios []result.Scenario
		want      []string
		skipped   int
	}{
		{"repeats", []result.Scenario{{Index: 1, Name: "s", Repeats: []result.Repeat{repeat(1, 20), repeat(2, 20), repeat(3, 2)}}},
			[]string{"extra.json", "omb-result-2.json", "omb-result.json"}, 1},
		{"scenarios", []result.Scenario{{Index: 1, Name: "a", Repeats: []result.Repeat{repeat(1, 20)}}, {Index: 2, Name: "b", Repeats: []result.Repeat{repeat(1, 20)}}},
			[]string{"extra.json", "omb-result-2-1.json", "omb-result.json"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			doc := &result.Document{Plan: &result.PlanRun{Scenarios: tc.scenarios}}
			w, err := WriteAll(dir, filepath.Join(dir, "extra.json"), doc, run)
			if err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, tc.want) || len(w.Skipped) != tc.skipped {
				t.Fatalf("wrote %v, skipped %q; want %v and %d skipped", names, w.Skipped, tc.want, tc.skipped)
			}
			for _, s := range w.Skipped {
				if !strings.Contains(s, "omb-result-3.json (scenario s, repeat 3): the run ended") {
					t.Errorf("skipped %q", s)
				}
			}
			a, _ := os.ReadFile(filepath.Join(dir, "omb-result.json"))
			b, _ := os.ReadFile(filepath.Join(dir, "extra.json"))
			if string(a) != string(b) || !strings.HasPrefix(string(a), "{\n  \"workload\" : \"1 topic\"") {
				t.Errorf("extra.json differs from omb-result.json, or is not OMB's:\n%s", a)
			}
		})
	}
}
