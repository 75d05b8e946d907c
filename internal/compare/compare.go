// Package compare compares two kbench result documents, scenario by
// scenario and metric by metric, and says whether B is better, worse or
// within noise of A. Learn Report first; Load reads a side, Compare builds
// the Report, Check applies --fail-if rules to it.
package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// Side is one result document as compared: its scenarios' figures.
type Side struct {
	Label     string // the plan or tool, status and start time
	Dir       string // the folder holding its result.json
	scenarios []scenario
	measured  map[string]bool // metrics measured in any scenario
}

type scenario struct {
	name   string
	values map[string]Value
	ok     bool // a repeat ended ok: the figures of ok repeats are there
}

// Load reads a side: a results folder (holding result.json) or a result
// file, of kbench run or of a drop-in tool. A drop-in tool's document is a
// single scenario, named by its kind, with one repeat.
func Load(path string) (*Side, error) {
	file := path
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		file = filepath.Join(path, "result.json")
	}
	if _, err := os.Stat(file); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if file != path {
				return nil, userr.Errorf("%s: no result.json in this folder; give a results folder of kbench run or a result file", path)
			}
			return nil, userr.Errorf("%s: no such file or folder", path)
		}
		return nil, userr.Errorf("%s: %v", path, err)
	}
	doc, err := result.Read(file)
	if err != nil {
		return nil, userr.New(err)
	}
	if run := doc.Plan; run != nil {
		// Today's statistics, also for a result of an older kbench.
		if err := run.Reaggregate(); err != nil {
			return nil, userr.Errorf("%s: %v", file, err)
		}
	}
	s := &Side{Dir: filepath.Dir(file), measured: map[string]bool{}}
	started := doc.StartedAt.UTC().Format(time.DateTime) + " UTC"
	if run := doc.Plan; run != nil {
		s.Label = fmt.Sprintf("%s (%s, started %s)", run.Name, doc.Status, started)
		for _, sc := range run.Scenarios {
			s.scenarios = append(s.scenarios, scenariosOf(sc)...)
		}
	} else {
		s.Label = fmt.Sprintf("%s (%s, started %s)", doc.Kind, doc.Status, started)
		s.scenarios = []scenario{{doc.Kind, dropInValues(doc), true}}
	}
	seen := map[string]bool{}
	for _, sc := range s.scenarios {
		if seen[sc.name] {
			return nil, userr.Errorf("%s: two scenarios are named %q; compare matches scenarios by name and could not tell them apart: give them different matrix values in the plan", file, sc.name)
		}
		seen[sc.name] = true
	}
	for _, sc := range s.scenarios {
		for name := range sc.values {
			s.measured[name] = true
		}
	}
	return s, nil
}

// Verdict says how B's figure compares with A's.
type Verdict string

const (
	Better      Verdict = "better"
	Worse       Verdict = "worse"
	WithinNoise Verdict = "within noise"
	Same        Verdict = "same"
	OnlyA       Verdict = "only measured in A"
	OnlyB       Verdict = "only measured in B"
)

// NoteOneRepeat marks a verdict taken from a single repeat on a side: with
// no spread, noise cannot be told from change. NoteTwoRepeats marks one
// from two: their 95% interval would be 12.7 standard errors wide on each
// side (Student's t), wider than anything possible, so none is given.
const (
	NoteOneRepeat  = "1 repeat: spread unknown"
	NoteTwoRepeats = "2 repeats: too few for an interval"
)

// Report is the comparison of two sides.
type Report struct {
	A, B         string // the sides' labels
	Rows         []Row
	OnlyA, OnlyB []string // scenarios present in one side only
	Notes        []string // scenarios that could not be compared
	measuredA    map[string]bool
	measuredB    map[string]bool
	b            []scenario // for rules on B's own values
}

// Row is one metric of one scenario present in both sides.
type Row struct {
	Scenario string
	Metric   Metric
	A, B     *Value // nil: not measured on that side
	// Change is (B−A)/A in percent: ±Inf when A is 0 and B is not, 0
	// when both are 0, NaN when a side is missing.
	Change  float64
	Verdict Verdict
	Note    string
}

// Compare matches the sides' scenarios by name and compares every metric
// measured on either side.
func Compare(a, b *Side) *Report {
	r := &Report{A: a.Label, B: b.Label, measuredA: a.measured, measuredB: b.measured, b: b.scenarios}
	inB := map[string]scenario{}
	for _, sc := range b.scenarios {
		inB[sc.name] = sc
	}
	inA := map[string]bool{}
	for _, sa := range a.scenarios {
		inA[sa.name] = true
		sb, ok := inB[sa.name]
		switch {
		case !ok:
			r.OnlyA = append(r.OnlyA, sa.name)
			continue
		case !sa.ok || !sb.ok:
			side := "A and B"
			if sa.ok {
				side = "B"
			} else if sb.ok {
				side = "A"
			}
			r.Notes = append(r.Notes, fmt.Sprintf("scenario %s: no repeat ended ok in %s; only its errors, faults and verification are compared", sa.name, side))
		}
		for _, m := range Metrics {
			if !m.repeats && (!sa.ok || !sb.ok) {
				continue
			}
			va, okA := sa.values[m.Name]
			vb, okB := sb.values[m.Name]
			if !okA && !okB {
				continue
			}
			row := Row{Scenario: sa.name, Metric: m, Change: math.NaN()}
			switch {
			case !okB:
				row.A, row.Verdict = &va, OnlyA
			case !okA:
				row.B, row.Verdict = &vb, OnlyB
			default:
				row.A, row.B = &va, &vb
				row.Change = change(va.Mean, vb.Mean)
				row.Verdict, row.Note = judge(m, va, vb)
			}
			r.Rows = append(r.Rows, row)
		}
	}
	for _, sb := range b.scenarios {
		if !inA[sb.name] {
			r.OnlyB = append(r.OnlyB, sb.name)
		}
	}
	return r
}

// change is (b−a)/a in percent; from 0 any change is infinite, which
// displays as n/a but still crosses a --fail-if rule in its direction.
func change(a, b float64) float64 {
	switch {
	case a == b:
		return 0
	case a == 0:
		return math.Inf(int(math.Copysign(1, b)))
	}
	return (b - a) / math.Abs(a) * 100
}

// negligible is a change that shows as 0.0%: below the table's precision,
// and below the 0.1% resolution of the latency histograms.
func negligible(change float64) bool { return math.Abs(change) < 0.05 }

// judge gives the verdict on B against A. Counts are compared exactly;
// means are within noise when both have a 95% confidence interval (3+
// repeats) and the intervals overlap.
func judge(m Metric, a, b Value) (Verdict, string) {
	if a.Mean == b.Mean || !a.Exact && !b.Exact && negligible(change(a.Mean, b.Mean)) {
		return Same, ""
	}
	v := Worse
	if (b.Mean > a.Mean) == m.HigherBetter {
		v = Better
	}
	switch {
	case a.Exact || b.Exact:
		return v, ""
	case a.N < 2 || b.N < 2:
		return v, NoteOneRepeat
	case !a.HasCI || !b.HasCI:
		return v, NoteTwoRepeats
	case a.Low <= b.High && b.Low <= a.High:
		return WithinNoise, ""
	}
	return v, ""
}
