package plan

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/serde"
	"github.com/kbench/kbench/internal/suggest"
)

// checkSamples is how many values of a template are rendered and encoded
// at check time: enough that a one_of or a nullable generator shows each
// of its kinds (a template that fits its schema once but not always is
// rare past a few dozen).
const checkSamples = 64

// schemaPlaces are where a message's templates and key schema were
// written, for its problems.
type schemaPlaces struct {
	tmpl      *yaml.Node
	tmplCol   *collector
	key       *yaml.Node
	keySchema *yaml.Node
}

// messageSchemas reads a message's format and schemas (inline, or from a
// file next to the plan) and checks its templates against them: a
// template field the schema lacks, one it needs and the template lacks,
// or a value of the wrong type is a problem at the field, not an error at
// record 1,000,000.
func (c *collector) messageSchemas(m *Message, n *yaml.Node, path string, given map[string]*yaml.Node, at schemaPlaces) {
	schemaNode, fileNode := given["schema"], given["schema_file"]
	switch {
	case m.Format == "" && given["format"] != nil:
		return // a format kbench does not know: said where it is written
	case m.Format == "" && (schemaNode != nil || fileNode != nil || at.keySchema != nil):
		node := schemaNode
		if node == nil {
			node = fileNode
		}
		if node == nil {
			node = at.keySchema
		}
		c.addf(node, path, "gives a schema but no format; add format: avro, json_schema or protobuf")
		return
	case m.Format == "":
		return
	case m.Template == nil:
		c.addf(given["format"], join(path, "format"), "applies to template or template_file only: the values are rendered from a template and encoded with the schema")
		return
	case schemaNode != nil && fileNode != nil:
		c.addf(fileNode, join(path, "schema_file"), "give schema or schema_file, not both")
		return
	case schemaNode == nil && fileNode == nil:
		c.addf(given["format"], join(path, "format"), "needs a schema: write schema: (the schema's text) or schema_file: user%s next to the plan", m.Format.FileExt())
		return
	}
	m.Schema, m.SchemaFile = c.schema(m.Format, schemaNode, fileNode, path)
	if m.Schema != nil && at.tmpl != nil {
		c.checkTemplate(*m.Template, m.Schema, at.tmpl, at.tmplCol, join(path, "template"))
	}
	if ev := given["schema_evolution"]; ev != nil {
		m.Evolution = c.evolution(m, ev, join(path, "schema_evolution"), at)
	}
	if at.keySchema != nil {
		kp := join(path, "key")
		var ks, kf *yaml.Node
		for i := 0; i+1 < len(at.keySchema.Content); i += 2 {
			switch at.keySchema.Content[i].Value {
			case "schema":
				ks = at.keySchema.Content[i+1]
			case "schema_file":
				kf = at.keySchema.Content[i+1]
			}
		}
		switch {
		case m.KeyTemplate == nil:
			c.addf(at.keySchema, kp, "a key schema needs a key template: the keys are rendered from it and encoded with the schema")
		case ks != nil && kf != nil:
			c.addf(kf, join(kp, "schema_file"), "give schema or schema_file, not both")
		default:
			m.KeySchema, _ = c.schema(m.Format, ks, kf, kp)
			if m.KeySchema != nil {
				c.checkTemplate(*m.KeyTemplate, m.KeySchema, at.key, c, join(kp, "template"))
			}
		}
	}
}

// schema parses an inline schema or reads one from a file.
func (c *collector) schema(f serde.Format, inline, file *yaml.Node, path string) (*serde.Schema, string) {
	var text, name string
	node, p := inline, join(path, "schema")
	if inline != nil {
		t, ok := c.scalar(inline, p, "the schema's text (a block such as schema: |)")
		if !ok {
			return nil, ""
		}
		text = t
	} else {
		node, p = file, join(path, "schema_file")
		n, ok := c.scalar(file, p, "a file name")
		if !ok {
			return nil, ""
		}
		name = n
		full := n
		if !filepath.IsAbs(full) {
			full = filepath.Join(c.dir, full)
		}
		data, err := infile.ReadContext(c.ctx, full, serde.MaxSchema, "a schema")
		if err != nil {
			c.addf(file, p, "%v", err)
			return nil, ""
		}
		text = string(data)
	}
	s, err := serde.ParseFile(f, name, text)
	if err != nil {
		where := "is not a valid %s schema: %v"
		if name != "" {
			where = name + " is not a valid %s schema: %v"
		}
		c.addf(node, p, where, f, err)
		return nil, ""
	}
	return s, name
}

// checkTemplate renders values of t and encodes them with s; a field that
// does not fit is a problem at the field's place in the template.
func (c *collector) checkTemplate(t payload.Template, s *serde.Schema, node *yaml.Node, col *collector, path string) {
	src, err := payload.CompileTemplate(t, 1)
	if err != nil {
		return // the template's own problems are reported where it is read
	}
	err = serde.Check(src, s, checkSamples)
	if err == nil {
		return
	}
	var fe *serde.FieldError
	at, where := node, path
	reason := err.Error()
	if errors.As(err, &fe) {
		at = nodeAt(node, fe.Path)
		switch {
		case fe.PathString() == "":
		case col != c:
			where = fe.PathString()
		default:
			where = join(path, fe.PathString())
		}
		reason = fe.Reason
		if len(fe.Path) > 0 && len(fe.Known) > 0 {
			if near := suggest.Nearest(fe.Path[len(fe.Path)-1], fe.Known); near != "" {
				reason += " (" + suggest.Mean(near, suggest.Bare) + ")"
			}
		}
	}
	what := fmt.Sprintf("the %s schema %s", s.Format, s.Name)
	if s.Name == "" {
		what = fmt.Sprintf("its %s schema", s.Format)
	}
	col.addf(at, where, "does not fit %s: %s", what, reason)
	if col != c {
		c.list = append(c.list, col.list[len(col.list)-1])
	}
}

// nodeAt finds the template node of a field path: the key of the deepest
// field the template has (the place to fix a wrong or extra field), or
// the object that lacks a field.
func nodeAt(n *yaml.Node, path []string) *yaml.Node {
	cur := n
	for _, name := range path {
		if cur == nil || cur.Kind != yaml.MappingNode {
			return cur
		}
		var next *yaml.Node
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == name {
				next = cur.Content[i+1]
				if next.Kind != yaml.MappingNode || isGenerator(next) {
					return cur.Content[i]
				}
			}
		}
		if next == nil {
			return cur
		}
		cur = next
	}
	return cur
}

// schemaRegistry reads the plan's schema_registry: the Confluent serializer
// properties, checked as the serializers would.
func (c *collector) schemaRegistry(n *yaml.Node, path string) map[string]string {
	props := c.properties(n, path)
	if props == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !contains(serde.Properties, k) {
			msg := "is not a schema registry property kbench reads"
			if near := suggest.Nearest(k, serde.Properties); near != "" {
				msg += "; " + suggest.Mean(near, suggest.Bare)
			} else {
				msg += "; use " + strings.Join(serde.Properties, ", ")
			}
			c.addf(n.Content[i], join(path, k), "%s", msg)
		}
	}
	if _, err := serde.ConfigFrom(props); err != nil {
		var pe *serde.PropError
		if errors.As(err, &pe) {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == pe.Key {
					c.addf(n.Content[i+1], join(path, pe.Key), "%s", pe.Reason)
					return props
				}
			}
		}
		c.addf(n, path, "%v", err)
	}
	return props
}

// isGenerator reports whether a template mapping is a generator ({_type: ...}).
func isGenerator(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "_type" {
			return true
		}
	}
	return false
}

// registryDefaults finds the registry for a plan whose messages have a
// schema format: its schema_registry, else its local cluster's, started
// with it (a cluster named by cluster.name must have one).
func (c *collector) registryDefaults(p *Plan, root *yaml.Node) {
	if !p.UsesSchemas() || p.SchemaRegistry["schema.registry.url"] != "" {
		return
	}
	if p.Cluster.Bootstrap != "" {
		c.addf(root, "schema_registry", "missing: messages have a format, and a cluster given by bootstrap servers needs the registry's URL: add schema_registry: {schema.registry.url: http://HOST:8081}, or leave out cluster.bootstrap to run on a local cluster, which starts one")
		return
	}
	if p.Cluster.Name == "" {
		p.Cluster.Local.SchemaRegistry = true
	}
}

// evolution reads schema_evolution: {after: 30s, schema_file: v2.avsc}
// (or schema:), a new version the template must fit too.
func (c *collector) evolution(m *Message, n *yaml.Node, path string, at schemaPlaces) *Evolution {
	ev := &Evolution{}
	var inline, file, after *yaml.Node
	ok := c.fields(n, path, []string{"after", "schema", "schema_file"}, func(key string, v *yaml.Node) {
		switch key {
		case "after":
			after = v
			ev.After = c.duration(v, join(path, key))
		case "schema":
			inline = v
		case "schema_file":
			file = v
		}
	})
	if !ok {
		return nil
	}
	switch {
	case after == nil:
		c.addf(n, join(path, "after"), "missing; say when to register the new version, such as after: 30s")
		return nil
	case ev.After <= 0:
		c.addf(after, join(path, "after"), "must be more than 0: the new version is registered while records flow")
		return nil
	case (inline == nil) == (file == nil):
		c.addf(n, path, "give the new version as schema or schema_file (one of them)")
		return nil
	}
	ev.Schema, ev.File = c.schema(m.Format, inline, file, path)
	if ev.Schema == nil {
		return nil
	}
	if at.tmpl != nil {
		c.checkTemplate(*m.Template, ev.Schema, at.tmpl, at.tmplCol, join(path, "template"))
	}
	return ev
}
