package ombresult

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/result"
)

// FileName is OMB's result in a results folder.
const FileName = "omb-result.json"

// Written is what WriteAll wrote and what it could not make.
type Written struct {
	Paths []string
	// Skipped says, for each repeat not written, why (a repeat cut off in
	// its warm-up has no period after it).
	Skipped []string
}

// WriteAll writes OMB's result of every repeat of doc's plan run in dir:
// omb-result.json is the first scenario's first repeat (the one OMB would
// have written; --omb-result copies it to extra unless extra is empty),
// and each other repeat omb-result-N.json (N its repeat), or
// omb-result-S-N.json when the plan has several scenarios (S the
// scenario's index). A repeat that ran no period is skipped and said.
func WriteAll(dir, extra string, doc *result.Document, run Run) (Written, error) {
	var out Written
	if doc.Plan == nil {
		return out, fmt.Errorf("write %s: not a plan run", FileName)
	}
	several := len(doc.Plan.Scenarios) > 1
	for si, sc := range doc.Plan.Scenarios {
		for ri, rep := range sc.Repeats {
			name := fileName(several, sc.Index, rep.Index, si == 0 && ri == 0)
			r, err := Build(rep, run)
			if err != nil {
				out.Skipped = append(out.Skipped, fmt.Sprintf("%s (scenario %s, repeat %d): %v", name, sc.Name, rep.Index, err))
				continue
			}
			paths := []string{filepath.Join(dir, name)}
			if si == 0 && ri == 0 && extra != "" {
				paths = append(paths, extra)
			}
			for _, p := range paths {
				if err := Write(p, r); err != nil {
					return out, err
				}
				out.Paths = append(out.Paths, p)
			}
		}
	}
	return out, nil
}

func fileName(several bool, scenario, repeat int, first bool) string {
	switch {
	case first:
		return FileName
	case several:
		return "omb-result-" + strconv.Itoa(scenario) + "-" + strconv.Itoa(repeat) + ".json"
	default:
		return "omb-result-" + strconv.Itoa(repeat) + ".json"
	}
}

// Write stores r at path in OMB's form (outfile.Write: atomically).
func Write(path string, r *TestResult) error {
	b := r.JSON()
	if err := outfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("write OMB's result %s: %w", path, err)
	}
	return nil
}
