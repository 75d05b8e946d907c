package measure

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Section is one measured part of a workload, of its kind's own shape
// (counters, Histograms, series), that merges itself: an engine's
// clients, a distributed repeat's workers and a scenario's repeats are
// all merged with Add, so a kind that measures something new brings its
// section and no merge code elsewhere. A section is a plain value that
// encoding/json writes and reads (its Histograms encode themselves): the
// result document stores it under its registered name.
type Section interface {
	// Add merges other, a section registered under the same name, into
	// the receiver. Its error says why other cannot be added (damaged,
	// of another type).
	Add(other Section) error
}

var (
	sectionsMu sync.RWMutex
	sections   = map[string]func() Section{}
)

// RegisterSection registers a section type under name, with a function
// that makes an empty one (what every merge starts from). Call it from
// the init of the package defining the section; registering a name twice
// is a programming error and panics.
func RegisterSection(name string, empty func() Section) {
	sectionsMu.Lock()
	defer sectionsMu.Unlock()
	if _, ok := sections[name]; ok {
		panic(fmt.Sprintf("measure: section %q registered twice", name))
	}
	sections[name] = empty
}

// NewSection makes an empty section of the type registered under name;
// false when none is (a result written by a kbench with a kind this one
// lacks).
func NewSection(name string) (Section, bool) {
	sectionsMu.RLock()
	empty, ok := sections[name]
	sectionsMu.RUnlock()
	if !ok {
		return nil, false
	}
	return empty(), true
}

// MergeSections merges parts, sections registered under name, into a new
// one: an empty section with each part added in order, so no part is
// changed.
func MergeSections(name string, parts []Section) (Section, error) {
	out, ok := NewSection(name)
	if !ok {
		return nil, fmt.Errorf("section %s: no such section type in this kbench", name)
	}
	for i, p := range parts {
		if err := out.Add(p); err != nil {
			return nil, fmt.Errorf("section %s: part %d: %w", name, i, err)
		}
	}
	return out, nil
}

// AddSection is what a section's Add starts with: other as the receiver's
// own type, or an error naming both.
func AddSection[T Section](other Section) (T, error) {
	o, ok := other.(T)
	if !ok {
		var want T
		return want, fmt.Errorf("cannot add a %T to a %T", other, want)
	}
	return o, nil
}

// histogramJSON is a Histogram as a document stores it: the exact
// statistics beside the HdrHistogram (Encode's form), which holds only
// the buckets.
type histogramJSON struct {
	Count     int64  `json:"count"`
	Sum       int64  `json:"sum"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	OverRange int64  `json:"over_range,omitempty"`
	Negative  int64  `json:"negative,omitempty"`
	Histogram string `json:"histogram"`
}

// MarshalJSON writes h with its exact statistics: a section holds its
// histograms typed, and only the document's encoding encodes them.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	enc, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(histogramJSON{Count: h.count, Sum: h.sum, Min: h.min, Max: h.max,
		OverRange: h.overRange, Negative: h.negative, Histogram: enc})
}

// UnmarshalJSON reads what MarshalJSON wrote. A histogram that does not
// decode, or holds another number of values than its count, is an error.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := NewHistogram()
	if j.Histogram != "" {
		var err error
		if d, err = Decode(j.Histogram); err != nil {
			return err
		}
	}
	if n := d.count; n != j.Count {
		return fmt.Errorf("histogram holds %d values but count is %d", n, j.Count)
	}
	d.SetExact(j.Count, j.Sum, j.Min, j.Max, j.OverRange, j.Negative)
	*h = *d
	return nil
}

// Tabled is a section the reports show: each section of one title is a
// row of one table, after the scenario and workload columns the reports
// add. A kind's section shows itself this way, so the reports know no
// kind.
type Tabled interface {
	Section
	Table() SectionTable
}

// SectionTable is one section's row of a table: the table's title, its
// columns, the row's cells (figures formatted), and a note under the
// table (the same for every row of a title; "" for none).
type SectionTable struct {
	Title   string
	Columns []string
	Row     []string
	Note    string
}
