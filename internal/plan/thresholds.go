package plan

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/units"
)

// Threshold is a pass/fail rule on what a workload measured, k6 style: a
// run that crosses one still writes everything, and exits 99.
type Threshold struct {
	Metric    string  // one of ThresholdMetrics
	Op        string  // <, <=, >, >=, ==, !=
	Value     float64 // in the metric's unit
	Condition string  // as written, normalised: "<= 50"
}

// ThresholdMetrics are what a threshold can test, with what each means. A
// workload's latency is its publish latency for a produce workload and its
// end-to-end latency for a consume or end-to-end workload.
var ThresholdMetrics = map[string]string{
	"records_per_sec": "records/s, the mean over repeats (steady state)",
	"mb_per_sec":      "MB/s of record values (1024 × 1024 bytes), the mean over repeats",
	"p50_ms":          "median latency in ms, the mean over repeats",
	"p95_ms":          "p95 latency in ms, the mean over repeats",
	"p99_ms":          "p99 latency in ms, the mean over repeats",
	"p99_9_ms":        "p99.9 latency in ms, the mean over repeats",
	"max_ms":          "maximum latency in ms, the mean over repeats",
	"errors":          "failed records and consumer errors, summed over every repeat",
}

var conditionRE = regexp.MustCompile(`^\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$`)

// Holds says whether v satisfies the threshold.
func (t Threshold) Holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Value
	case "<=":
		return v <= t.Value
	case ">":
		return v > t.Value
	case ">=":
		return v >= t.Value
	case "==":
		return v == t.Value
	default: // !=
		return v != t.Value
	}
}

func (c *collector) thresholds(n *yaml.Node, path string) []Threshold {
	if n.Kind != yaml.MappingNode {
		c.addf(n, path, `is %s; write a mapping such as {p99_ms: "<= 50", errors: "== 0"}`, kindName(n))
		return nil
	}
	names := make([]string, 0, len(ThresholdMetrics))
	for m := range ThresholdMetrics {
		names = append(names, m)
	}
	sort.Strings(names)
	var out []Threshold
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		if _, ok := ThresholdMetrics[k.Value]; !ok {
			msg := "is not a threshold metric"
			if hint := suggest.Hint(k.Value, names, suggest.Bare); hint != "" {
				msg += "; " + hint
			}
			c.addf(k, p, "%s (one of %s)", msg, strings.Join(names, ", "))
			continue
		}
		if seen[k.Value] {
			c.addf(k, p, "given twice; keep one")
			continue
		}
		seen[k.Value] = true
		s, ok := c.scalar(v, p, `a condition such as "<= 50"`)
		if !ok {
			continue
		}
		m := conditionRE.FindStringSubmatch(s)
		if m == nil {
			c.addf(v, p, `%q is not a condition; write an operator (<, <=, >, >=, ==, !=) and a number, quoted: "<= 50"`, s)
			continue
		}
		val, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			n, cerr := units.ParseCount(m[2]) // 100k
			if cerr != nil {
				c.addf(v, p, "%q: %q is not a number; write a number such as 50 or 100k", s, m[2])
				continue
			}
			val = float64(n)
		}
		out = append(out, Threshold{Metric: k.Value, Op: m[1], Value: val, Condition: m[1] + " " + m[2]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out
}
