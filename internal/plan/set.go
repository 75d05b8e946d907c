package plan

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// step is one step of a --set path: a mapping key, or a list index.
type step struct {
	key   string
	index int // -1 for a key
}

// parseSetPath splits Helm's path syntax: keys joined by '.', '\.' for a
// dot inside a key (cluster.properties.linger\.ms), [i] for list entries.
func parseSetPath(path string) ([]step, error) {
	var steps []step
	var key strings.Builder
	flush := func() error {
		if key.Len() == 0 {
			return fmt.Errorf("empty key in %q", path)
		}
		steps = append(steps, step{key: key.String(), index: -1})
		key.Reset()
		return nil
	}
	for i := 0; i < len(path); i++ {
		switch ch := path[i]; {
		case ch == '\\' && i+1 < len(path) && path[i+1] == '.':
			key.WriteByte('.')
			i++
		case ch == '.':
			if i > 0 && path[i-1] == ']' {
				continue
			}
			if err := flush(); err != nil {
				return nil, err
			}
		case ch == '[':
			if key.Len() > 0 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", path)
			}
			n, err := strconv.Atoi(path[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("[%s] is not a list index in %q", path[i+1:i+end], path)
			}
			steps = append(steps, step{index: n})
			i += end
		default:
			key.WriteByte(ch)
		}
	}
	if key.Len() > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if len(steps) == 0 || steps[0].index >= 0 {
		return nil, fmt.Errorf("%q does not start with a field name", path)
	}
	return steps, nil
}

// setValue is the node a --set value stands for: {a,b} is a list, as in
// Helm; anything else one value (commas included: bootstrap lists).
func setValue(v string, line int) *yaml.Node {
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line, Column: 1}
		if strings.TrimSpace(v[1:len(v)-1]) == "" {
			return seq // {} is an empty list, not a list of one empty value
		}
		for _, item := range strings.Split(v[1:len(v)-1], ",") {
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: strings.TrimSpace(item), Line: line, Column: 1})
		}
		return seq
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: line, Column: 1}
}

// applySet applies --set i to the plan's tree.
func applySet(root *yaml.Node, set string, i int) error {
	path, value, ok := strings.Cut(set, "=")
	if !ok {
		return fmt.Errorf("no '=': write --set PATH=VALUE, such as --set repeat=2 or --set 'workloads[0].records=50k'")
	}
	steps, err := parseSetPath(path)
	if err != nil {
		return fmt.Errorf("%v; write a path such as repeat, cluster.bootstrap or workloads[0].records", err)
	}
	n := root
	where := ""
	for si, st := range steps {
		last := si == len(steps)-1
		if st.index >= 0 {
			if n.Kind != yaml.SequenceNode {
				return fmt.Errorf("%s is %s, not a list", where, shownKind(n, where))
			}
			if st.index >= len(n.Content) {
				return fmt.Errorf("%s has %d entries (indexes 0 to %d)", where, len(n.Content), len(n.Content)-1)
			}
			where = fmt.Sprintf("%s[%d]", where, st.index)
			if last {
				n.Content[st.index] = setValue(value, setLine(i))
				return nil
			}
			n = n.Content[st.index]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is %s, not a mapping with fields", where, shownKind(n, where))
		}
		where = join(where, st.key)
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == st.key {
				if last {
					n.Content[j+1] = setValue(value, setLine(i))
					return nil
				}
				next = n.Content[j+1]
			}
		}
		if next == nil {
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.key, Line: setLine(i), Column: 1}
			if last {
				n.Content = append(n.Content, k, setValue(value, setLine(i)))
				return nil
			}
			if steps[si+1].index >= 0 {
				return fmt.Errorf("%s does not exist", where)
			}
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: setLine(i), Column: 1}
			n.Content = append(n.Content, k, next)
		}
		n = next
	}
	return nil
}

// shownKind is kindName for a message, without the value of a secret key.
func shownKind(n *yaml.Node, path string) string {
	if n.Kind == yaml.ScalarNode && secretPath(path) {
		return "a single value"
	}
	return kindName(n)
}
