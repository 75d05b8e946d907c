package report

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/units"
)

// matrixData is each summary metric against one swept parameter, with its
// spread over repeats: one series per combination of the other parameters
// (and per workload when the table has a row per workload).
//
// The x parameter is the numeric one with the most values (record_size,
// partitions), drawn on a numeric axis with its unit, on a log scale when
// its values span two decades or more; with no numeric parameter, the
// categorical one with the most values (acks), drawn as grouped bars.
type matrixData struct {
	Parameter string `json:"parameter"` // the x parameter, or "scenario"
	Unit      string `json:"unit,omitempty"`
	// Numeric: X holds each value's number, ascending, and Log says
	// whether the axis is logarithmic; else the axis is categorical.
	Numeric bool      `json:"numeric"`
	Log     bool      `json:"log,omitempty"`
	X       []float64 `json:"x,omitempty"`
	Labels  []string  `json:"labels"` // the values as written, in X's order
	// Series is what the lines or bars stand for ("message, workload").
	Series  string         `json:"series,omitempty"`
	Metrics []matrixMetric `json:"metrics"`
}

type matrixMetric struct {
	Name   string         `json:"name"`
	Unit   string         `json:"unit"`
	Series []matrixSeries `json:"series"`
	// Axis is how its y axis is drawn (axes.go).
	Axis yAxis `json:"axis"`
}

// matrixSeries is one line (or one bar of each group): the mean over
// repeats at each x, and the lowest and highest repeat (null where the
// scenario did not run or measured nothing).
type matrixSeries struct {
	Name string     `json:"name"` // the other parameters' values; empty with one parameter
	Mean []*float64 `json:"mean"`
	Min  []*float64 `json:"min"`
	Max  []*float64 `json:"max"`
	// Ceiling is the readers' theoretical maximum at each x (the
	// scenario's result.Ceilings), drawn as a dashed line on the consumed
	// records/s chart; nil where no scenario has one.
	Ceiling []*float64 `json:"ceiling,omitempty"`
}

// param is one swept parameter's values, and their numbers when every
// value reads as one (in the same unit).
type param struct {
	name    string
	values  []string // distinct, in the matrix's order
	numbers map[string]float64
	unit    string
}

func (p *param) numeric() bool { return p.numbers != nil }

func params(run *result.PlanRun) []*param {
	var out []*param
	for _, name := range run.Parameters {
		p := &param{name: name}
		seen := map[string]bool{}
		for _, sc := range run.Scenarios {
			if v := paramValue(sc, name); !seen[v] {
				seen[v] = true
				p.values = append(p.values, v)
			}
		}
		p.numbers, p.unit = numbers(name, p.values)
		out = append(out, p)
	}
	return out
}

// plainRE is a number alone: a count, or bytes when the parameter's name
// says so.
var plainRE = regexp.MustCompile(`^[0-9][0-9_]*(?:\.[0-9]+)?$`)

// numbers reads every value as a number in one unit: bytes (100, 4KiB;
// a plain number is bytes when the parameter's name says size or bytes),
// records/s (25k/s), seconds (90s) or a plain count (10, 1.5k). Any value
// that is none of these makes the parameter categorical (nil).
func numbers(name string, values []string) (map[string]float64, string) {
	out := map[string]float64{}
	unit := ""
	for i, v := range values {
		n, u, ok := number(v)
		if !ok || i > 0 && u != unit && !(u == "" && unit == "B" || u == "B" && unit == "") {
			return nil, ""
		}
		if u != "" {
			unit = u
		}
		out[v] = n
	}
	if lower := strings.ToLower(name); unit == "" && (strings.Contains(lower, "size") || strings.Contains(lower, "bytes")) {
		unit = "B"
	}
	return out, unit
}

// number reads a value as a plan's grammar (internal/units) does: a count
// (10, 1.5k), bytes (4KiB), records/s (25k/s) or seconds (90s).
func number(s string) (float64, string, bool) {
	t := strings.TrimSpace(s)
	if plainRE.MatchString(t) {
		x, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
		return x, "", err == nil
	}
	if n, err := units.ParseCount(t); err == nil {
		return float64(n), "", true
	}
	if b, _, err := units.ParseSizeFraction(t); err == nil {
		return b, "B", true
	}
	if strings.Contains(t, "/") {
		r, err := units.ParseRate(t)
		return r, "records/s", err == nil
	}
	if d, err := units.ParseDuration(t); err == nil {
		return d.Seconds(), "s", true
	}
	return 0, "", false
}

// xParam picks the x axis: the numeric parameter with the most values,
// else the parameter with the most values; the first of equals; nil
// without parameters.
func xParam(ps []*param) *param {
	var best *param
	for _, p := range ps {
		if best == nil {
			best = p
			continue
		}
		pn, bn := p.numeric() && len(p.values) > 1, best.numeric() && len(best.values) > 1
		if pn != bn && pn || pn == bn && len(p.values) > len(best.values) {
			best = p
		}
	}
	return best
}

func matrix(run *result.PlanRun) *matrixData {
	m := &matrixData{Parameter: "scenario"}
	ps := params(run)
	x := xParam(ps)
	var rest []string
	if x != nil {
		m.Parameter, m.Unit, m.Numeric = x.name, x.unit, x.numeric()
		m.Labels = append(m.Labels, x.values...)
		if m.Numeric {
			sort.SliceStable(m.Labels, func(i, j int) bool { return x.numbers[m.Labels[i]] < x.numbers[m.Labels[j]] })
			for _, l := range m.Labels {
				m.X = append(m.X, x.numbers[l])
			}
			m.Log = len(m.X) > 0 && m.X[0] > 0 && m.X[len(m.X)-1]/m.X[0] >= 100
		}
		for _, p := range ps {
			if p != x {
				rest = append(rest, p.name)
			}
		}
	} else {
		for _, sc := range run.Scenarios {
			m.Labels = append(m.Labels, sc.Name)
		}
	}
	xOf := map[string]int{}
	for i, l := range m.Labels {
		xOf[l] = i
	}
	// Place each scenario: x is its x parameter's value, the series the
	// rest; with a row per workload in the table, a series per workload
	// too, each with its own figures.
	split := perWorkload(run)
	m.Series = strings.Join(rest, ", ")
	if split {
		m.Series = strings.Join(append(rest, "workload"), ", ")
	}
	groupOf := map[string]int{}
	var groups []string
	type point struct {
		x, g    int
		a       *result.Aggregate
		w       *result.WorkloadAggregate
		ceiling *float64
	}
	var points []point
	group := func(name string) int {
		g, ok := groupOf[name]
		if !ok {
			g = len(groups)
			groupOf[name] = g
			groups = append(groups, name)
		}
		return g
	}
	for i := range run.Scenarios {
		sc := &run.Scenarios[i]
		at, series := xOf[sc.Name], []string(nil)
		if x != nil {
			at = xOf[paramValue(*sc, x.name)]
			for _, p := range rest {
				series = append(series, p+"="+paramValue(*sc, p))
			}
		}
		if !split || sc.Aggregate == nil {
			points = append(points, point{x: at, g: group(strings.Join(series, ", ")), a: sc.Aggregate, ceiling: ceilingOf(sc, "")})
			continue
		}
		for j := range sc.Aggregate.Workloads {
			w := &sc.Aggregate.Workloads[j]
			points = append(points, point{x: at, g: group(strings.Join(append(series, w.Name), ", ")), w: w, ceiling: ceilingOf(sc, w.Name)})
		}
	}
	for _, mt := range matrixMetrics {
		mm := matrixMetric{Name: mt.name, Unit: mt.unit}
		for _, g := range groups {
			n := len(m.Labels)
			mm.Series = append(mm.Series, matrixSeries{Name: g, Mean: make([]*float64, n), Min: make([]*float64, n), Max: make([]*float64, n)})
		}
		measured := map[int]bool{}
		for _, p := range points {
			var s *result.Stats
			switch {
			case p.w != nil:
				s = mt.of(p.w)
			case p.a != nil:
				s = mt.get(p.a)
			}
			if s == nil || s.N == 0 {
				continue
			}
			ser := &mm.Series[p.g]
			ser.Mean[p.x], ser.Min[p.x], ser.Max[p.x] = ptr(round3(s.Mean)), ptr(round3(s.Min)), ptr(round3(s.Max))
			if mt.ceiling && p.ceiling != nil {
				if ser.Ceiling == nil {
					ser.Ceiling = make([]*float64, len(m.Labels))
				}
				ser.Ceiling[p.x] = p.ceiling
			}
			measured[p.g] = measured[p.g] || s.Mean != 0
		}
		// Only the series that measured the metric: the probe's line on
		// the consumed records/s chart would be empty.
		var kept []matrixSeries
		for g, ser := range mm.Series {
			if measured[g] {
				kept = append(kept, ser)
			}
		}
		if len(kept) > 0 {
			mm.Series = kept
			mm.Axis = metricAxis(mm.Unit, kept, m.Numeric)
			m.Metrics = append(m.Metrics, mm)
		}
	}
	return m
}

// matrixMetrics are the metrics charted against the swept parameter: from
// the scenario's aggregate, or a workload's with a row per workload.
var matrixMetrics = []struct {
	name, unit string
	get        func(*result.Aggregate) *result.Stats
	of         func(*result.WorkloadAggregate) *result.Stats
	ceiling    bool // the readers' theoretical maximum is drawn with it
}{
	{"records/s", "records/s", func(a *result.Aggregate) *result.Stats { return &a.RecordsPerSec }, func(w *result.WorkloadAggregate) *result.Stats { return w.RecordsPerSec }, false},
	{"MB/s", "MB/s", func(a *result.Aggregate) *result.Stats { return &a.MiBPerSec }, func(w *result.WorkloadAggregate) *result.Stats { return w.MiBPerSec }, false},
	{"p50 latency", "ms", func(a *result.Aggregate) *result.Stats { return &a.P50Ms }, func(w *result.WorkloadAggregate) *result.Stats { return w.P50Ms }, false},
	{"p99 latency", "ms", func(a *result.Aggregate) *result.Stats { return &a.P99Ms }, func(w *result.WorkloadAggregate) *result.Stats { return w.P99Ms }, false},
	{"p99.9 latency", "ms", func(a *result.Aggregate) *result.Stats { return &a.P999Ms }, func(w *result.WorkloadAggregate) *result.Stats { return w.P999Ms }, false},
	{"end-to-end p99 latency", "ms", func(a *result.Aggregate) *result.Stats { return a.EndToEndP99Ms }, func(w *result.WorkloadAggregate) *result.Stats { return w.EndToEndP99Ms }, false},
	{"consumed records/s", "records/s", func(a *result.Aggregate) *result.Stats { return a.ConsumeRecordsPerSec }, func(w *result.WorkloadAggregate) *result.Stats { return w.ConsumeRecordsPerSec }, true},
}

// ceilingOf is the theoretical maximum of workload's readers in sc, or of
// all its readers ("": their sum, the scenario's consumed records/s); nil
// when a reader has none.
func ceilingOf(sc *result.Scenario, workload string) *float64 {
	sum, n := 0.0, 0
	for _, c := range sc.Ceilings {
		if workload == "" || c.Workload == workload {
			sum += c.RecordsPerSec
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return ptr(round3(sum))
}
