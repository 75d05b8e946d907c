package plan

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/suggest"
)

// Problem is one thing wrong with a plan, where it is and how to fix it.
type Problem struct {
	Where string // "plan.yaml:14:11", or "--set workloads[0].rate=fast"
	Line  int    // for ordering; 0 for --set
	Col   int
	Path  string // "workloads[0].rate"
	Msg   string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Where + ": " + p.Msg
	}
	return p.Where + ": " + p.Path + ": " + p.Msg
}

// Problems is every problem found in a plan; its Error lists them one per
// line, in the order of the file.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	if len(ps) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%d problems in the plan:\n  %s", len(ps), strings.Join(lines, "\n  "))
}

// collector gathers problems while a plan is decoded.
type collector struct {
	ctx   context.Context // interrupts the reading of files the plan names
	file  string
	dir   string // the plan's folder: template files are relative to it
	sets  []string
	notes map[*yaml.Node]string // nodes filled from the matrix: "(${x} = v)"
	// declared are the matrix's parameter names, valid or not, so that a
	// bad list is not also reported at every ${x}.
	declared map[string]bool
	seen     map[string]bool
	list     Problems
	warnings Problems
	// faultsNode and clusterNode are where the plan wrote them, for
	// checks made once the scenarios are known.
	faultsNode, clusterNode *yaml.Node
	// brokerConfigsNode is cluster.broker_configs, read per scenario
	// (its values may take matrix parameters).
	brokerConfigsNode *yaml.Node
	// topicNodes are the scenario being read's topics, as written (the
	// tiered-storage checks point into their configs).
	topicNodes []*yaml.Node
	// zones are the plan's network.zones by name, which a network
	// fault's between may name as a side.
	zones map[string]*zoneDef
	// refs caches whether a node's subtree holds a ${param} reference.
	refs map[*yaml.Node]bool
	// types are the workload types the plan may use (WithType), in
	// typeOrder.
	types     map[string]TypeRule
	typeOrder []string
	// kinds are the fault kinds it may use (faultKinds, WithFaultKind).
	kinds map[string]faults.Kind
	// ombNames seeds an OMB workload's names (WithOMBNames; "": random).
	ombNames string
}

func newCollector(file string, sets []string) *collector {
	return &collector{ctx: context.Background(), file: file, sets: sets, notes: map[*yaml.Node]string{}, refs: map[*yaml.Node]bool{}, declared: map[string]bool{}, seen: map[string]bool{},
		types: map[string]TypeRule{}}
}

// setLine marks nodes made by --set i: their Line is -(i+1).
func setLine(i int) int { return -(i + 1) }

func (c *collector) addf(n *yaml.Node, path, format string, args ...any) {
	p := c.problem(n, path, format, args...)
	// The same problem in every scenario is one problem.
	if key := p.String(); !c.seen[key] {
		c.seen[key] = true
		c.list = append(c.list, p)
	}
}

// warnf notes something that will likely not do what the plan says, but
// may: the run goes ahead.
func (c *collector) warnf(n *yaml.Node, path, format string, args ...any) {
	p := c.problem(n, path, format, args...)
	if key := "warning " + p.String(); !c.seen[key] {
		c.seen[key] = true
		c.warnings = append(c.warnings, p)
	}
}

func (c *collector) problem(n *yaml.Node, path, format string, args ...any) Problem {
	p := Problem{Path: path, Msg: fmt.Sprintf(format, args...)}
	switch {
	case n == nil:
		p.Where = c.file
	case n.Line < 0:
		p.Where = "--set " + shownSet(c.sets[-n.Line-1])
	default:
		p.Where = fmt.Sprintf("%s:%d:%d", c.file, n.Line, n.Column)
		p.Line, p.Col = n.Line, n.Column
	}
	if note, ok := c.notes[n]; ok {
		p.Msg += " " + note
	}
	return p
}

func (c *collector) err() error {
	if len(c.list) == 0 {
		return nil
	}
	sort.SliceStable(c.list, func(i, j int) bool {
		a, b := c.list[i], c.list[j]
		if (a.Line == 0) != (b.Line == 0) {
			return a.Line == 0 // --set problems first: they explain the rest
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return c.list
}

// fields walks a mapping, reporting keys it does not know (with the nearest
// known one) and keys given twice; fn gets each known key's value.
func (c *collector) fields(n *yaml.Node, path string, known []string, fn func(key string, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		c.addf(n, path, "is %s; write a mapping of %s", kindName(n), strings.Join(known, ", "))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		switch {
		case !contains(known, k.Value):
			msg := fmt.Sprintf("unknown field %q", k.Value)
			if hint := suggest.Hint(k.Value, known, suggest.Quoted); hint != "" {
				msg += "; " + hint
			} else {
				msg += "; known fields: " + strings.Join(known, ", ")
			}
			c.addf(k, path, "%s", msg)
		case seen[k.Value]:
			c.addf(k, kp, "given twice; keep one")
		default:
			seen[k.Value] = true
			fn(k.Value, v)
		}
	}
	return true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return fmt.Sprintf("%q", n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
