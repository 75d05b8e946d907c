package plan

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/units"
)

// scalar returns a scalar's text; anything else is a problem.
func (c *collector) scalar(n *yaml.Node, path, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		c.addf(n, path, "is %s; write %s", kindName(n), want)
		return "", false
	}
	return n.Value, true
}

func (c *collector) boolean(n *yaml.Node, path string) bool {
	s, ok := c.scalar(n, path, "true or false")
	if !ok {
		return false
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	c.addf(n, path, "%q is not true or false", s)
	return false
}

func (c *collector) text(n *yaml.Node, path string) string {
	s, _ := c.scalar(n, path, "a text value")
	return s
}

// whole is a whole number in [lo, hi]; human forms (1k) are accepted.
func (c *collector) whole(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	s, ok := c.scalar(n, path, fmt.Sprintf("a whole number from %d to %d", lo, hi))
	if !ok {
		return 0, false
	}
	v, err := units.ParseCount(s)
	if err != nil {
		c.addf(n, path, "%v", err)
		return 0, false
	}
	if v < lo || v > hi {
		c.addf(n, path, "%s is out of range; write a whole number from %d to %d", s, lo, hi)
		return 0, false
	}
	return v, true
}

func (c *collector) count(n *yaml.Node, path string) int64 {
	s, ok := c.scalar(n, path, "a count such as 20M")
	if !ok {
		return 0
	}
	v, err := units.ParseCount(s)
	if err != nil {
		c.addf(n, path, "%v", err)
		return 0
	}
	if v == 0 {
		c.addf(n, path, "0 records; write a count above 0, or leave the field out")
	}
	return v
}

func (c *collector) size(n *yaml.Node, path string, max int64) int64 {
	s, ok := c.scalar(n, path, "a size such as 100 or 4KiB")
	if !ok {
		return 0
	}
	v, err := units.ParseSize(s)
	if err != nil {
		c.addf(n, path, "%v", err)
		return 0
	}
	if v < 1 || v > max {
		c.addf(n, path, "%s bytes is out of range; write a size from 1 B to %d B", s, max)
		return 0
	}
	return v
}

// rate is a rate limit: records per second, or unlimited (0).
func (c *collector) rate(n *yaml.Node, path string) float64 {
	s, ok := c.scalar(n, path, "a rate such as 25k/s")
	if !ok {
		return 0
	}
	v, err := units.ParseLimit(s)
	if err != nil {
		c.addf(n, path, "%v", err)
	}
	return v
}

// rateAbove0 is a rate in records per second; 0 only after an error.
func (c *collector) rateAbove0(n *yaml.Node, path string) float64 {
	s, ok := c.scalar(n, path, "a rate such as 25k/s")
	if !ok {
		return 0
	}
	v, err := units.ParseRate(s)
	if err != nil {
		c.addf(n, path, "%v", err)
	}
	return v
}

func (c *collector) duration(n *yaml.Node, path string) time.Duration {
	s, ok := c.scalar(n, path, "a duration such as 90s")
	if !ok {
		return 0
	}
	v, err := units.ParseDuration(s)
	if err != nil {
		c.addf(n, path, "%v", err)
	}
	return v
}

func (c *collector) oneOf(n *yaml.Node, path string, allowed ...string) string {
	s, ok := c.scalar(n, path, "one of "+quoteList(allowed))
	if !ok {
		return ""
	}
	if !contains(allowed, s) {
		msg := fmt.Sprintf("%q is not one of %s", s, quoteList(allowed))
		if hint := suggest.Hint(s, allowed, suggest.Quoted); hint != "" {
			msg += "; " + hint
		}
		c.addf(n, path, "%s", msg)
		return ""
	}
	return s
}

// properties is a mapping of names to scalar values, as text.
func (c *collector) properties(n *yaml.Node, path string) map[string]string {
	if n.Kind != yaml.MappingNode {
		c.addf(n, path, "is %s; write a mapping such as {acks: all, linger.ms: 5}", kindName(n))
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := out[k.Value]; dup {
			c.addf(k, join(path, k.Value), "given twice; keep one")
			continue
		}
		if v.Kind == yaml.MappingNode && v.Line < 0 {
			// --set cluster.properties.linger.ms=5 made linger a mapping.
			c.addf(v, join(path, k.Value), "is a mapping: a property name's dots are written \\. in --set, as in --set '%s.%s=...'",
				path, strings.ReplaceAll(firstLeaf(k.Value, v), ".", `\.`))
			continue
		}
		if s, ok := c.scalar(v, join(path, k.Value), "a single value"); ok {
			out[k.Value] = s
		}
	}
	return out
}

// firstLeaf is the dotted name of the first value under a mapping that
// --set made from a name with unescaped dots: sasl → jaas → config.
func firstLeaf(name string, n *yaml.Node) string {
	for n.Kind == yaml.MappingNode && len(n.Content) >= 2 {
		name += "." + n.Content[0].Value
		n = n.Content[1]
	}
	return name
}

func quoteList(list []string) string {
	out := ""
	for i, s := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			out += " or "
		default:
			out += ", "
		}
		out += s
	}
	return out
}

// brokerConfigs is cluster.broker_configs: dynamic broker settings, each
// a name and a value (matrix values substituted).
func (c *collector) brokerConfigs(n *yaml.Node) map[string]string {
	const path = "cluster.broker_configs"
	out := c.properties(n, path)
	for name, v := range out {
		if strings.TrimSpace(v) == "" {
			c.addf(valueNode(n, name), join(path, name), "is empty; give the value the brokers should have while the scenario runs")
		}
	}
	return out
}
