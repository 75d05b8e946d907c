package plan

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	paramRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	refRE   = regexp.MustCompile(`\$\{([^}]*)\}`)
)

// point is one scenario's parameter values, as nodes (a value may be a
// mapping, such as a whole message).
type point struct {
	names  []string
	values map[string]*yaml.Node
}

// matrix reads the matrix: a mapping of lists is the cross product (keys in
// file order), a list of mappings gives the points one by one.
func (c *collector) matrix(n *yaml.Node) (names []string, points []point) {
	if n == nil {
		return nil, []point{{values: map[string]*yaml.Node{}}}
	}
	switch n.Kind {
	case yaml.MappingNode:
		var lists [][]*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			c.declared[k.Value] = true
			if !c.paramName(k, "matrix") {
				continue
			}
			if contains(names, k.Value) {
				c.addf(k, "matrix."+k.Value, "given twice; keep one")
				continue
			}
			if v.Kind != yaml.SequenceNode {
				c.addf(v, "matrix."+k.Value, "is %s; write a list of values, such as [1, 10, 100]", kindName(v))
				continue
			}
			if len(v.Content) == 0 {
				c.addf(v, "matrix."+k.Value, "is an empty list; give at least one value, or remove the parameter")
				continue
			}
			names = append(names, k.Value)
			lists = append(lists, v.Content)
		}
		total := 1
		for _, l := range lists {
			total *= len(l)
			if total > MaxScenarios {
				c.addf(n, "matrix", "gives more than %d scenarios; sweep fewer values or split the study into several plans", MaxScenarios)
				return names, nil
			}
		}
		points = []point{{values: map[string]*yaml.Node{}}}
		for i, list := range lists {
			var next []point
			for _, p := range points {
				for _, v := range list {
					vals := map[string]*yaml.Node{names[i]: v}
					for k, x := range p.values {
						vals[k] = x
					}
					next = append(next, point{names: names[:i+1], values: vals})
				}
			}
			points = next
		}
	case yaml.SequenceNode:
		for i, m := range n.Content {
			path := fmt.Sprintf("matrix[%d]", i)
			if m.Kind != yaml.MappingNode {
				c.addf(m, path, "is %s; write a mapping of parameter values such as {replication: 3, acks: all}", kindName(m))
				continue
			}
			p := point{values: map[string]*yaml.Node{}}
			for j := 0; j+1 < len(m.Content); j += 2 {
				k, v := m.Content[j], m.Content[j+1]
				if !c.paramName(k, path) {
					continue
				}
				if _, dup := p.values[k.Value]; dup {
					c.addf(k, path+"."+k.Value, "given twice; keep one")
					continue
				}
				p.names = append(p.names, k.Value)
				p.values[k.Value] = v
				if !contains(names, k.Value) {
					names = append(names, k.Value)
				}
			}
			points = append(points, p)
		}
		if len(points) > MaxScenarios {
			c.addf(n, "matrix", "gives more than %d scenarios; split the study into several plans", MaxScenarios)
			return names, nil
		}
		if len(n.Content) == 0 {
			c.addf(n, "matrix", "is an empty list; give at least one scenario, or leave matrix out")
		}
	default:
		c.addf(n, "matrix", "is %s; write a mapping of lists ({record_size: [10, 100]}) or a list of mappings", kindName(n))
		return nil, []point{{values: map[string]*yaml.Node{}}}
	}
	for i := range points {
		points[i].names = names
	}
	return names, points
}

func (c *collector) paramName(k *yaml.Node, path string) bool {
	if !paramRE.MatchString(k.Value) {
		c.addf(k, path, "%q is not a parameter name; use letters, digits and '_', starting with a letter (it is used as ${name})", k.Value)
		return false
	}
	return true
}

// checkRefs reports ${x} with x not in the matrix, ${...} outside topics,
// workloads and faults, and matrix parameters used nowhere.
func (c *collector) checkRefs(root, topics, workloads, matrix *yaml.Node, names []string) (undefined bool) {
	used := map[string]bool{}
	var walk func(n *yaml.Node, path string, allowed bool)
	walk = func(n *yaml.Node, path string, allowed bool) {
		if n == nil {
			return
		}
		if n.Kind == yaml.ScalarNode {
			for _, m := range refRE.FindAllStringSubmatch(n.Value, -1) {
				switch {
				case !allowed:
					undefined = true
					c.addf(n, path, "${%s}: matrix parameters apply to topics, workloads, faults and cluster.broker_configs only", m[1])
				case !contains(names, m[1]) && !c.declared[m[1]]:
					undefined = true
					msg := fmt.Sprintf("${%s} is not a matrix parameter", m[1])
					if len(names) > 0 {
						msg += "; the matrix has " + strings.Join(names, ", ")
					} else {
						msg += "; add it to matrix: (matrix: {" + m[1] + ": [...]})"
					}
					c.addf(n, path, "%s", msg)
				case contains(names, m[1]):
					used[m[1]] = true
				}
			}
			return
		}
		for i, ch := range n.Content {
			p := path
			if n.Kind == yaml.MappingNode {
				if i%2 == 0 {
					continue
				}
				p = join(path, n.Content[i-1].Value)
			} else if n.Kind == yaml.SequenceNode {
				p = fmt.Sprintf("%s[%d]", path, i)
			}
			walk(ch, p, allowed)
		}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch v {
		case topics, workloads, c.faultsNode:
			walk(v, k.Value, true)
		case c.clusterNode:
			for j := 0; j+1 < len(v.Content); j += 2 {
				walk(v.Content[j+1], join(k.Value, v.Content[j].Value), v.Content[j+1] == c.brokerConfigsNode)
			}
		case matrix:
		default:
			walk(v, k.Value, false)
		}
	}
	if matrix == nil {
		return undefined
	}
	for _, name := range names {
		if !used[name] {
			c.addf(paramKey(matrix, name), "matrix."+name, "is not used; reference it as ${%s} in a topic or workload, or remove it", name)
		}
	}
	return undefined
}

// paramKey finds where a parameter is named, for its problems.
func paramKey(matrix *yaml.Node, name string) *yaml.Node {
	var found *yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i, ch := range n.Content {
			if found != nil {
				return
			}
			if n.Kind == yaml.MappingNode && i%2 == 0 && ch.Value == name {
				found = ch
				return
			}
			if n.Kind == yaml.SequenceNode {
				walk(ch)
			}
		}
	}
	walk(matrix)
	if found == nil {
		return matrix
	}
	return found
}

// fromSet names the --set a matrix value came from, for the notes of the
// problems it causes where it is used.
func (c *collector) fromSet(v *yaml.Node) string {
	if v.Line >= 0 {
		return ""
	}
	return ", from --set " + shownSet(c.sets[-v.Line-1])
}

// substitute returns a copy of n with ${x} replaced from the point: a value
// that is only ${x} becomes the parameter's node (a number stays a number,
// a mapping a mapping); inside text the parameter's text is spliced in.
func (c *collector) substitute(n *yaml.Node, pt point, path string) *yaml.Node {
	if n == nil {
		return nil
	}
	if !c.hasRef(n) {
		// Nothing to fill in: every scenario shares the node (nodes are
		// only read once the matrix is expanded). A 10,000-scenario plan
		// copied its whole tree per scenario.
		return n
	}
	out := *n
	switch n.Kind {
	case yaml.ScalarNode:
		if m := refRE.FindStringSubmatch(n.Value); m != nil && m[0] == n.Value {
			if v, ok := pt.values[m[1]]; ok {
				cp := deepCopy(v)
				cp.Line, cp.Column = n.Line, n.Column
				c.notes[cp] = fmt.Sprintf("(${%s} = %s%s)", m[1], valueText(v), c.fromSet(v))
				return cp
			}
			return &out
		}
		if refRE.MatchString(n.Value) {
			var note []string
			out.Value = refRE.ReplaceAllStringFunc(n.Value, func(ref string) string {
				name := ref[2 : len(ref)-1]
				v, ok := pt.values[name]
				if !ok {
					return ref
				}
				if v.Kind != yaml.ScalarNode {
					c.addf(n, path, "${%s} is %s; a mapping or list can only be a whole value, not part of a text", name, kindName(v))
					return ref
				}
				note = append(note, fmt.Sprintf("${%s} = %s%s", name, v.Value, c.fromSet(v)))
				return v.Value
			})
			out.Tag = "!!str"
			cp := &out
			if len(note) > 0 {
				c.notes[cp] = "(" + strings.Join(note, ", ") + ")"
			}
			return cp
		}
		return &out
	case yaml.MappingNode, yaml.SequenceNode:
		out.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			p := path
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				p = join(path, n.Content[i-1].Value)
			} else if n.Kind == yaml.SequenceNode {
				p = fmt.Sprintf("%s[%d]", path, i)
			}
			out.Content[i] = c.substitute(ch, pt, p)
		}
	}
	return &out
}

// hasRef reports whether n or a node below it holds a ${param} reference.
func (c *collector) hasRef(n *yaml.Node) bool {
	if r, ok := c.refs[n]; ok {
		return r
	}
	r := n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${")
	for _, ch := range n.Content {
		if c.hasRef(ch) {
			r = true
		}
	}
	c.refs[n] = r
	return r
}

func deepCopy(n *yaml.Node) *yaml.Node {
	out := *n
	if n.Content != nil {
		out.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			out.Content[i] = deepCopy(ch)
		}
	}
	return &out
}

// valueText is a parameter value as scenario names and tables show it:
// scalars as written, a mapping as its fields, anything nested deeper as
// {…} (a whole template would make an unreadable name).
func valueText(n *yaml.Node) string { return valueTextAt(n, 0) }

func valueTextAt(n *yaml.Node, depth int) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.MappingNode:
		if depth > 0 {
			return "{…}"
		}
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, n.Content[i].Value+"="+valueTextAt(n.Content[i+1], depth+1))
		}
		return strings.Join(parts, ",")
	case yaml.SequenceNode:
		if depth > 0 {
			return "[…]"
		}
		var parts []string
		for _, ch := range n.Content {
			parts = append(parts, valueTextAt(ch, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return n.Value
}
