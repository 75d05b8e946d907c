package compare

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/userr"
)

// Rule is a --fail-if gate: METRIC OP SIGNED-PERCENT, such as p99_ms>+10%.
// It is crossed when the metric's change in some scenario present in both
// sides satisfies OP against the percentage.
type Rule struct {
	Text    string
	Metric  Metric
	Op      string // >, >=, < or <=
	Percent float64
}

const ruleForm = "write METRIC OP PERCENT, such as p99_ms>+10% or records_per_sec<-5%, with OP one of > >= < <="

var ruleRE = regexp.MustCompile(`^([A-Za-z0-9_.]+)\s*(>=|<=|>|<)\s*([+-]?[0-9]+(?:\.[0-9]+)?)\s*(%?)$`)

// ParseRule parses a --fail-if rule. Its errors are the user's to fix.
func ParseRule(s string) (Rule, error) {
	m := ruleRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Rule{}, userr.Errorf("--fail-if %q: not a rule; %s", s, ruleForm)
	}
	metric, ok := metricByName(m[1])
	if !ok {
		hint := ""
		if near := nearestMetric(m[1]); near != "" {
			hint = fmt.Sprintf("did you mean %q? ", near)
		}
		return Rule{}, userr.Errorf("--fail-if %q: unknown metric %q; %smetrics: %s", s, m[1], hint, strings.Join(metricNames(), ", "))
	}
	if m[4] == "" {
		// A bare number could be read as ms or records/s: rules are
		// relative changes only.
		return Rule{}, userr.Errorf("--fail-if %q: %s is not a percentage; rules compare relative changes, so write %s%%", s, m[3], m[3])
	}
	pct, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return Rule{}, userr.Errorf("--fail-if %q: %v; %s", s, err, ruleForm)
	}
	return Rule{Text: s, Metric: metric, Op: m[2], Percent: pct}, nil
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

// crossed reports whether change (percent) satisfies the rule. A NaN
// change (a side missing) never does.
func (r Rule) crossed(change float64) bool {
	switch r.Op {
	case ">":
		return change > r.Percent
	case ">=":
		return change >= r.Percent
	case "<":
		return change < r.Percent
	default:
		return change <= r.Percent
	}
}

// Crossing is a rule crossed in one scenario.
type Crossing struct {
	Rule Rule
	Row  Row
}

func (c Crossing) String() string {
	m := c.Row.Metric
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
// be crossed, and a gate that cannot fail must not pass silently.
func Check(r *Report, rules []Rule) ([]Crossing, error) {
	var out []Crossing
	for _, rule := range rules {
		name := rule.Metric.Name
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
