package compare

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/userr"
)

// Rule is a --fail-if gate: METRIC OP SIGNED-PERCENT, such as p99_ms>+10%,
// crossed when the metric's change in some scenario present in both sides
// satisfies OP against the percentage; or METRIC OP NUMBER, such as lost>0
// (Absolute), crossed when B's own value in some scenario does.
type Rule struct {
	Text     string
	Metric   Metric
	Op       string // >, >=, < or <=
	Percent  float64
	Absolute bool    // Value is a bound on B's figure, in the metric's unit
	Value    float64 // Absolute's bound
}

const ruleForm = "write METRIC OP PERCENT for a change from A, such as p99_ms>+10% or records_per_sec<-5%, or METRIC OP NUMBER for B's own value, such as lost>0 or p99_ms>250, with OP one of > >= < <="

var ruleRE = regexp.MustCompile(`^([A-Za-z0-9_.]+)\s*(>=|<=|>|<)\s*([+-]?[0-9]+(?:\.[0-9]+)?)\s*(%?)$`)

// ParseRule parses a --fail-if rule. Its errors are the user's to fix.
func ParseRule(s string) (Rule, error) {
	m := ruleRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Rule{}, userr.Errorf("--fail-if %q: not a rule; %s", s, ruleForm)
	}
	metric, ok := metricByName(m[1])
	if !ok {
		hint := suggest.Mean(nearestMetric(m[1]), suggest.Quoted)
		if hint != "" {
			hint += " "
		}
		return Rule{}, userr.Errorf("--fail-if %q: unknown metric %q; %smetrics: %s", s, m[1], hint, strings.Join(metricNames(), ", "))
	}
	x, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return Rule{}, userr.Errorf("--fail-if %q: %v; %s", s, err, ruleForm)
	}
	if m[4] == "" {
		switch m[3][0] {
		// A signed number reads as a change: p99_ms>+10 missing its %.
		case '+':
			return Rule{}, userr.Errorf("--fail-if %q: %s is signed, as a change is; write %s%% for a change from A, or %s for B's own value in %s", s, m[3], m[3], m[3][1:], unitOf(metric))
		case '-':
			return Rule{}, userr.Errorf("--fail-if %q: %s is signed, as a change is; write %s%% for a change from A (B's own values, in %s, are never negative)", s, m[3], m[3], unitOf(metric))
		}
		return Rule{Text: s, Metric: metric, Op: m[2], Absolute: true, Value: x}, nil
	}
	return Rule{Text: s, Metric: metric, Op: m[2], Percent: x}, nil
}

func unitOf(m Metric) string {
	if m.Unit == "" {
		return "a count"
	}
	return m.Unit
}

// nearestMetric guesses the metric meant: the one name completes with its
// unit ("p99" → "p99_ms", which beats the nearer spelling of "p99_9" to
// "p99_ms"), else a near spelling.
func nearestMetric(name string) string {
	for _, m := range Metrics {
		if strings.HasPrefix(m.Name, strings.ToLower(name)+"_") {
			return m.Name
		}
	}
	return suggest.Nearest(name, metricNames())
}

// crossed reports whether x, a change in percent or for an absolute rule
// B's value, satisfies the rule. NaN (a side missing) never does.
func (r Rule) crossed(x float64) bool {
	bound := r.Percent
	if r.Absolute {
		bound = r.Value
	}
	switch r.Op {
	case ">":
		return x > bound
	case ">=":
		return x >= bound
	case "<":
		return x < bound
	default:
		return x <= bound
	}
}

// Crossing is a rule crossed in one scenario.
type Crossing struct {
	Rule Rule
	Row  Row
}

func (c Crossing) String() string {
	m := c.Row.Metric
	if c.Rule.Absolute {
		s := fmt.Sprintf("scenario %s: %s is %s", c.Row.Scenario, m.Name, formatNum(m, c.Row.B.Mean))
		if m.Unit != "" {
			s += " " + m.Unit
		}
		return s + " in B, crossing --fail-if " + c.Rule.Text
	}
	s := fmt.Sprintf("scenario %s: %s changed %s (%s → %s", c.Row.Scenario, m.Name, formatChange(c.Row.Change),
		formatNum(m, c.Row.A.Mean), formatNum(m, c.Row.B.Mean))
	if m.Unit != "" {
		s += " " + m.Unit
	}
	s += "), crossing --fail-if " + c.Rule.Text
	if c.Row.Verdict == WithinNoise {
		s += " (within noise)"
	}
	return s
}

// faultFigures are the metrics only some plans measure, and what measures
// them.
var faultFigures = map[string]string{
	"election_ms":      "only a plan with faults measures it",
	"unavailable_ms":   "only a plan with faults measures it",
	"isr_shrunk_ms":    "only a plan with faults measures it",
	"isr_recovered_ms": "only a plan with faults measures it",
	"lost":             "only a verified run measures it: a plan with faults, or verify: true",
	"duplicated":       "only a verified run measures it: a plan with faults, or verify: true",
	// The brokers' cost is read from /proc on a cluster kbench started.
	"broker_cpu_per_mrec":       "only a run on a local cluster measures it",
	"broker_rss_peak_mib":       "only a run on a local cluster measures it",
	"broker_written_per_record": "only a run on a local cluster measures it",
	"broker_records_per_core":   "only a run on a local cluster measures it",
	// The handlers' share is read from the brokers' metrics endpoints.
	"broker_handler_busy_pct": "only a run on a local cluster, or with cluster.metrics, measures it",
	// The devices are found from a local cluster's data directories.
	"broker_disk_busy_pct": "only a run on a local cluster whose data is on a block device measures it",
}

// Crossed is the error of a comparison that crossed --fail-if rules: the
// comparison itself succeeded, B failed the gate.
type Crossed struct {
	Crossings []Crossing
}

func (e *Crossed) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d --fail-if crossing(s):", len(e.Crossings))
	for _, c := range e.Crossings {
		b.WriteString("\n  " + c.String())
	}
	return b.String()
}

// Check applies rules to the report and returns every crossing. A rule on
// a metric not measured by both sides is the user's error: it could never
// be crossed, and a gate that cannot fail must not pass silently. A rule
// on a figure only faults or verification measure (lost, election_ms)
// that neither side measured passes with a note in the report: a CI gate
// such as lost>0, kept for every plan, exited 2 on the plans without
// faults.
func Check(r *Report, rules []Rule) ([]Crossing, error) {
	var out []Crossing
	for _, rule := range rules {
		name := rule.Metric.Name
		if why, ok := faultFigures[name]; ok && !r.measuredA[name] && !r.measuredB[name] {
			r.Notes = append(r.Notes, fmt.Sprintf("--fail-if %s not checked: neither result measured %s (%s)", rule.Text, rule.Metric.What, why))
			continue
		}
		if rule.Absolute {
			if !r.measuredB[name] {
				return nil, userr.Errorf("--fail-if %q: B did not measure %s", rule.Text, rule.Metric.What)
			}
			// Every scenario of B, also one A lacks: the bound is B's own.
			for _, sc := range r.b {
				if v, ok := sc.values[name]; ok && rule.crossed(v.Mean) {
					out = append(out, Crossing{rule, Row{Scenario: sc.name, Metric: rule.Metric, B: &v, Change: math.NaN()}})
				}
			}
			continue
		}
		switch a, b := r.measuredA[name], r.measuredB[name]; {
		case !a && !b:
			return nil, userr.Errorf("--fail-if %q: neither result measured %s", rule.Text, rule.Metric.What)
		case !a || !b:
			side := "A"
			if b {
				side = "B"
			}
			return nil, userr.Errorf("--fail-if %q: only %s measured %s; there is nothing to compare", rule.Text, side, rule.Metric.What)
		}
		compared := false
		for _, row := range r.Rows {
			if row.Metric.Name != name || row.A == nil || row.B == nil {
				continue
			}
			compared = true
			if rule.crossed(row.Change) {
				out = append(out, Crossing{rule, row})
			}
		}
		if !compared {
			return nil, userr.Errorf("--fail-if %q: no scenario present in both results measured %s in both", rule.Text, rule.Metric.What)
		}
	}
	return out, nil
}
