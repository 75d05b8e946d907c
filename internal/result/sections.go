package result

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kbench/kbench/internal/measure"
)

// Sections are a workload's measured sections of kinds' own shapes
// (measure.Section), by their registered names: a kind that measures
// something new adds its section here, merged by the section's own Add
// for workers (MergeRepeats) and repeats (AggregateScenario) alike, with
// no code in this package.
type Sections map[string]measure.Section

// unknownSection is a section this kbench has no type for (a result of a
// kbench with a kind this one lacks): kept as written, so the document
// still loads, reports and writes back unchanged, but not merged.
type unknownSection struct{ raw json.RawMessage }

func (u unknownSection) Add(measure.Section) error {
	return fmt.Errorf("no section type of this name in this kbench")
}

func (u unknownSection) MarshalJSON() ([]byte, error) { return u.raw, nil }

// UnmarshalJSON reads each section into its registered type.
func (s *Sections) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Sections, len(raw))
	for name, r := range raw {
		sec, ok := measure.NewSection(name)
		if !ok {
			out[name] = unknownSection{raw: r}
			continue
		}
		if err := json.Unmarshal(r, sec); err != nil {
			return fmt.Errorf("section %s: %w", name, err)
		}
		out[name] = sec
	}
	*s = out
	return nil
}

// names are the sections' names, sorted (the order merges go in).
func (s Sections) names() []string {
	var out []string
	for n := range s {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// mergeSections merges the sections of several parts (workers' slices,
// or repeats) by name with their own Add. A section of a type this kbench
// does not know cannot be merged: with notes (workers' slices) the first
// part's is kept and noted; without (repeats' statistics) it is left out,
// since one repeat's figures are not the repeats'.
func mergeSections(parts []Sections, what string, notes *inexact) (Sections, error) {
	byName := map[string][]measure.Section{}
	var order []string
	for _, p := range parts {
		for _, n := range p.names() {
			if _, ok := byName[n]; !ok {
				order = append(order, n)
			}
			byName[n] = append(byName[n], p[n])
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	out := make(Sections, len(order))

	for _, n := range order {
		ss := byName[n]
		if _, unknown := ss[0].(unknownSection); unknown {
			if notes == nil {
				continue
			}
			out[n] = ss[0]
			if len(ss) > 1 {
				notes.add("sections.%s: the first %s's only (this kbench does not know the section's type, so cannot merge it)", n, what)
			}
			continue
		}
		m, err := measure.MergeSections(n, ss)
		if err != nil {
			return nil, err
		}
		out[n] = m
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
