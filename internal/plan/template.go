package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/suggest"
)

// genParams are each generator's parameters.
var genParams = map[string][]string{
	"uuid":          nil,
	"constant":      {"_value"},
	"random_string": {"_length"},
	"random_int":    {"_min", "_max"},
	"random_float":  {"_min", "_max"},
	"bool":          nil,
	"sequence":      {"_start"},
	"one_of":        {"_values", "_weights"},
	"bytes":         {"_size"},
	"now":           {"_format"},
}

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

func (c *collector) generator(n *yaml.Node, path string) payload.Generator {
	var g payload.Generator
	params := map[string]*yaml.Node{}
	var typeNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "_type" {
			typeNode = v
			continue
		}
		params[k.Value] = v
	}
	typ, ok := c.scalar(typeNode, join(path, "_type"), "a generator such as uuid or random_int")
	if !ok {
		return g
	}
	if name, ok := strings.CutPrefix(typ, payload.FakerPrefix); ok {
		return c.fakerGenerator(n, path, typeNode, typ, name, params)
	}
	allowed, known := genParams[typ]
	if !known {
		msg := fmt.Sprintf("%q is not a generator; known: %s", typ, strings.Join(payload.Generators, ", "))
		if near := suggest.Nearest(typ, payload.Generators); near != "" {
			msg = fmt.Sprintf("%q is not a generator; did you mean %q?", typ, near)
		}
		c.addf(typeNode, join(path, "_type"), "%s", msg)
		return g
	}
	g.Type = typ
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Value != "_type" && !contains(allowed, k.Value) {
			msg := fmt.Sprintf("%s takes no %q", typ, k.Value)
			if len(allowed) > 0 {
				msg += "; it takes " + strings.Join(allowed, ", ")
			}
			c.addf(k, join(path, k.Value), "%s", msg)
		}
	}
	num := func(key string, def float64) float64 {
		v := params[key]
		if v == nil {
			return def
		}
		s, ok := c.scalar(v, join(path, key), "a number")
		if !ok {
			return def
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			c.addf(v, join(path, key), "%q is not a number", s)
			return def
		}
		return f
	}
	switch typ {
	case "constant":
		v := params["_value"]
		if v == nil {
			c.addf(n, join(path, "_value"), "missing; constant needs the value to send")
			return g
		}
		g.Values = []string{templateJSON(c.template(v, join(path, "_value"), 1))}
	case "random_string":
		g.Length = 16
		if v := params["_length"]; v != nil {
			if l, ok := c.whole(v, join(path, "_length"), 0, 1<<20); ok {
				g.Length = int(l)
			}
		}
	case "bytes":
		g.Length = 100
		if v := params["_size"]; v != nil {
			g.Length = int(c.size(v, join(path, "_size"), 1<<24))
		}
	case "random_int":
		g.Min, g.Max = num("_min", 0), num("_max", 100)
		if g.Min != math.Trunc(g.Min) || g.Max != math.Trunc(g.Max) || math.Abs(g.Min) > 1<<53 || math.Abs(g.Max) > 1<<53 {
			c.addf(n, path, "random_int takes whole numbers within ±2^53")
		}
		if g.Min > g.Max {
			c.addf(n, join(path, "_min"), "%v is above _max %v; swap them", g.Min, g.Max)
		}
	case "random_float":
		g.Min, g.Max = num("_min", 0), num("_max", 1)
		if g.Min > g.Max {
			c.addf(n, join(path, "_min"), "%v is above _max %v; swap them", g.Min, g.Max)
		}
	case "sequence":
		g.Start = int64(num("_start", 0))
	case "now":
		g.Format = "epoch_millis"
		if v := params["_format"]; v != nil {
			g.Format = c.oneOf(v, join(path, "_format"), payload.NowFormats...)
		}
	case "one_of":
		v := params["_values"]
		if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			c.addf(n, join(path, "_values"), "missing or empty; write a list of the values to choose from")
			return g
		}
		for i, it := range v.Content {
			g.Values = append(g.Values, templateJSON(c.template(it, fmt.Sprintf("%s._values[%d]", path, i), 1)))
		}
		if w := params["_weights"]; w != nil {
			if w.Kind != yaml.SequenceNode || len(w.Content) != len(v.Content) {
				c.addf(w, join(path, "_weights"), "write a list of %d weights, one per value", len(v.Content))
				return g
			}
			for i, it := range w.Content {
				f, err := strconv.ParseFloat(it.Value, 64)
				if err != nil || f < 0 || math.IsInf(f, 0) {
					c.addf(it, fmt.Sprintf("%s._weights[%d]", path, i), "%q is not a weight; write a number 0 or above", it.Value)
					return g
				}
				g.Weights = append(g.Weights, f)
			}
		}
	}
	return g
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
func (c *collector) templateFile(n *yaml.Node, path, dir string) *payload.Template {
	name, ok := c.scalar(n, path, "a file name")
	if !ok {
		return nil
	}
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		c.addf(n, path, "%v", err)
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		c.addf(n, path, "%s: %v", name, syntaxProblem(name, data, err))
		return nil
	}
	if len(doc.Content) == 0 {
		c.addf(n, path, "%s is empty", name)
		return nil
	}
	sub := newCollector(name, c.sets)
	t := sub.template(doc.Content[0], "", 0)
	c.list = append(c.list, sub.list...)
	return &t
}

// fakerGenerator checks a gofakeit generator and its parameters, given
// as _name: value (gofakeit's own parameter names).
func (c *collector) fakerGenerator(n *yaml.Node, path string, typeNode *yaml.Node, typ, name string, params map[string]*yaml.Node) payload.Generator {
	g := payload.Generator{Type: typ, Params: map[string]string{}}
	allowed, ok := payload.FakerParams(name)
	if !ok {
		msg := fmt.Sprintf("%q is not a faker generator (gofakeit's names, such as faker.email, faker.city, faker.number)", typ)
		if near := suggest.Nearest(name, payload.FakerNames()); near != "" {
			msg = fmt.Sprintf("%q is not a faker generator; did you mean %q?", typ, payload.FakerPrefix+near)
		}
		c.addf(typeNode, join(path, "_type"), "%s", msg)
		return g
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Value == "_type" {
			continue
		}
		if !contains(allowed, k.Value) {
			msg := fmt.Sprintf("%s takes no %q", typ, k.Value)
			if len(allowed) > 0 {
				msg += "; it takes " + strings.Join(allowed, ", ")
			}
			c.addf(k, join(path, k.Value), "%s", msg)
			continue
		}
		if v, ok := c.scalar(params[k.Value], join(path, k.Value), "a single value"); ok {
			g.Params[k.Value] = v
		}
	}
	return g
}
