package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/suggest"
)

// maxTemplateDepth bounds nesting, so a hostile file cannot recurse
// without end.
const maxTemplateDepth = 32

// template reads a message template: a mapping with _type is a
// generator, another mapping an object (fields in order), a list an
// array, anything else a literal.
func (c *collector) template(n *yaml.Node, path string, depth int) payload.Template {
	if depth > maxTemplateDepth {
		c.addf(n, path, "is nested more than %d levels deep", maxTemplateDepth)
		return payload.Template{}
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "_type" {
				return payload.Template{Kind: payload.KindGenerator, Gen: c.generator(n, path)}
			}
		}
		t := payload.Template{Kind: payload.KindObject}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if seen[k.Value] {
				c.addf(k, join(path, k.Value), "given twice; keep one")
				continue
			}
			seen[k.Value] = true
			t.Fields = append(t.Fields, payload.TemplateField{Name: k.Value, Value: c.template(n.Content[i+1], join(path, k.Value), depth+1)})
		}
		return t
	case yaml.SequenceNode:
		t := payload.Template{Kind: payload.KindArray}
		for i, it := range n.Content {
			t.Items = append(t.Items, c.template(it, fmt.Sprintf("%s[%d]", path, i), depth+1))
		}
		return t
	case yaml.ScalarNode:
		return payload.Template{Kind: payload.KindLiteral, JSON: literalJSON(n)}
	}
	c.addf(n, path, "is %s; write a mapping, a list or a value", kindName(n))
	return payload.Template{}
}

// literalJSON is a YAML scalar as JSON: numbers, booleans and null as
// such, anything else a string.
func literalJSON(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!int":
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return strconv.FormatInt(v, 10)
		}
	case "!!float":
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
	case "!!bool":
		if n.Value == "true" || n.Value == "false" {
			return n.Value
		}
	case "!!null":
		return "null"
	}
	b, _ := json.Marshal(n.Value)
	return string(b)
}

// generator reads a generator (a mapping with _type) by its type's entry
// in payload's registry: its parameters, each by its kind, then their
// values together (payload.CheckGenerator), as CompileTemplate will.
func (c *collector) generator(n *yaml.Node, path string) payload.Generator {
	var typeNode *yaml.Node
	given := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "_type" {
			typeNode = v
			continue
		}
		given[k.Value] = v
	}
	typ, ok := c.scalar(typeNode, join(path, "_type"), "a generator such as uuid or random_int")
	if !ok {
		return payload.Generator{}
	}
	g, params, known := payload.NewGenerator(typ)
	if !known {
		c.addf(typeNode, join(path, "_type"), "%s", unknownGenerator(typ))
		return g
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value != "_type" && !contains(names, k.Value) {
			msg := fmt.Sprintf("%s takes no %q", typ, k.Value)
			if len(names) > 0 {
				msg += "; it takes " + strings.Join(names, ", ")
			}
			c.addf(k, join(path, k.Value), "%s", msg)
		}
	}
	problems := len(c.list)
	for _, p := range params {
		v := given[p.Name]
		if v == nil {
			if p.Missing != "" {
				c.addf(n, join(path, p.Name), "%s", p.Missing)
				return g
			}
			continue
		}
		if val, ok := c.genParam(n, v, join(path, p.Name), p); ok {
			p.Set(&g, val)
		}
	}
	if len(c.list) == problems {
		if prob := payload.CheckGenerator(g); prob != nil {
			c.addf(n, join(path, prob.Param), "%s", prob.Msg)
		}
	}
	return g
}

// unknownGenerator says that typ is no generator, and which it may be.
func unknownGenerator(typ string) string {
	if name, ok := strings.CutPrefix(typ, payload.FakerPrefix); ok {
		if near := suggest.Nearest(name, payload.FakerNames()); near != "" {
			return fmt.Sprintf("%q is not a faker generator; %s", typ, suggest.Mean(payload.FakerPrefix+near, suggest.Quoted))
		}
		return fmt.Sprintf("%q is not a faker generator (gofakeit's names, such as faker.email, faker.city, faker.number)", typ)
	}
	if hint := suggest.Hint(typ, payload.Generators, suggest.Quoted); hint != "" {
		return fmt.Sprintf("%q is not a generator; %s", typ, hint)
	}
	return fmt.Sprintf("%q is not a generator; known: %s", typ, strings.Join(payload.Generators, ", "))
}

// genParam reads generator parameter p's value v (in the generator n) by
// its kind; false after a problem.
func (c *collector) genParam(n, v *yaml.Node, path string, p payload.GenParam) (payload.ParamValue, bool) {
	var val payload.ParamValue
	switch p.Kind {
	case payload.NumberParam:
		s, ok := c.scalar(v, path, "a number")
		if !ok {
			return val, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			c.addf(v, path, "%q is not a number", s)
			return val, false
		}
		val.Number = f
	case payload.WholeParam:
		w, ok := c.whole(v, path, p.Lo, p.Hi)
		if !ok {
			return val, false
		}
		val.Number = float64(w)
	case payload.SizeParam:
		b := c.size(v, path, p.Hi)
		if b == 0 {
			return val, false
		}
		val.Number = float64(b)
	case payload.ChoiceParam:
		val.Text = c.oneOf(v, path, p.Choices...)
		return val, val.Text != ""
	case payload.TextParam:
		s, ok := c.scalar(v, path, "a single value")
		val.Text = s
		return val, ok
	case payload.ValueParam:
		val.Text = templateJSON(c.template(v, path, 1))
	case payload.ValuesParam:
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			c.addf(n, path, "%s", p.Missing)
			return val, false
		}
		for i, it := range v.Content {
			val.List = append(val.List, templateJSON(c.template(it, fmt.Sprintf("%s[%d]", path, i), 1)))
		}
	case payload.WeightsParam:
		if v.Kind != yaml.SequenceNode {
			c.addf(v, path, "write a list of weights, one per value")
			return val, false
		}
		for i, it := range v.Content {
			f, err := strconv.ParseFloat(it.Value, 64)
			if err != nil || !(f >= 0) || math.IsInf(f, 0) { // NaN too
				c.addf(it, fmt.Sprintf("%s[%d]", path, i), "%q is not a weight; write a number 0 or above", it.Value)
				return val, false
			}
			val.Numbers = append(val.Numbers, f)
		}
	}
	return val, true
}

// templateJSON renders a template without generators (a constant's value).
func templateJSON(t payload.Template) string {
	switch t.Kind {
	case payload.KindObject:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = strconv.Quote(f.Name) + ":" + templateJSON(f.Value)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case payload.KindArray:
		parts := make([]string, len(t.Items))
		for i, it := range t.Items {
			parts[i] = templateJSON(it)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case payload.KindLiteral:
		return t.JSON
	}
	return "null"
}

// templateFile reads a template from a YAML or JSON file next to the plan.
func (c *collector) templateFile(n *yaml.Node, path, dir string) (*payload.Template, *yaml.Node, *collector) {
	name, ok := c.scalar(n, path, "a file name")
	if !ok {
		return nil, nil, nil
	}
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	data, err := infile.ReadContext(c.ctx, file, MaxFile, "a template")
	if err != nil {
		c.addf(n, path, "%v", err)
		return nil, nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		c.addf(n, path, "%s: %v", name, syntaxProblem(name, data, err))
		return nil, nil, nil
	}
	if len(doc.Content) == 0 {
		c.addf(n, path, "%s is empty", name)
		return nil, nil, nil
	}
	sub := newCollector(name, c.sets)
	t := sub.template(doc.Content[0], "", 0)
	c.list = append(c.list, sub.list...)
	return &t, doc.Content[0], sub
}
