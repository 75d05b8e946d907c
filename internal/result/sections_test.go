package result

import (
	"encoding/json"
	"strings"
	"testing"
)

// A section of a kind this kbench lacks (a newer kbench's result) loads,
// writes back as it was, and is not passed off as merged.
func TestUnknownSectionKeptNotMerged(t *testing.T) {
	const raw = `{"name":"w","type":"future","sections":{"future.kind":{"rounds":7}}}`
	var w Workload
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&w)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"sections":{"future.kind":{"rounds":7}}`) {
		t.Errorf("written back as %s", b)
	}
	merged, err := mergeWorkload([]workloadPart{{worker: 0, w: &w}, {worker: 1, w: &w}})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Sections["future.kind"] == nil || !strings.Contains(strings.Join(merged.Inexact, "\n"), "sections.future.kind: the first worker's only") {
		t.Errorf("merged %+v: want the first worker's section, noted", merged)
	}
	// The repeats' statistics leave it out: one repeat's is not theirs.
	agg, err := mergeSections([]Sections{w.Sections, w.Sections}, "repeat", nil)
	if err != nil || agg != nil {
		t.Errorf("repeats' sections %v (%v), want none", agg, err)
	}
}
