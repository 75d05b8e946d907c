package serde

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer words the validator's messages.
var printer = message.NewPrinter(language.English)

// jsonSchemaCodec sends the rendered JSON itself, as Confluent's JSON
// Schema serializer does. Check validates values against the schema and
// refuses a field its properties do not name; while records are sent
// they go as rendered, unvalidated, as the serializer does by default
// (json.fail.invalid.schema=false): the template was checked.
type jsonSchemaCodec struct {
	schema *jsonschema.Schema
	doc    any
}

// schemaURL is the URL the schema compiles under; its errors show the
// user's file (or "the schema") instead.
const schemaURL = "urn:kbench:schema"

func parseJSONSchema(text, file string) (codec, string, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, "", fmt.Errorf("parse JSON Schema: %w", err)
	}
	shown := file
	if shown == "" {
		shown = "the schema"
	}
	named := func(err error) error {
		msg := strings.ReplaceAll(err.Error(), schemaURL, shown)
		return fmt.Errorf("parse JSON Schema: %s", msg)
	}
	if n := countObjects(doc, maxJSONSchemaObjects+1); n > maxJSONSchemaObjects {
		return nil, "", fmt.Errorf("the schema has more than %d objects (subschemas and the maps of them), too many for kbench: the JSON Schema library (santhosh-tekuri/jsonschema) takes time that grows with the square of their number; use fewer properties", maxJSONSchemaObjects)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, "", named(err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, "", named(err)
	}
	name := ""
	if m, ok := doc.(map[string]any); ok {
		name, _ = m["title"].(string)
	}
	return &jsonSchemaCodec{schema: s, doc: doc}, name, nil
}

func (c *jsonSchemaCodec) index() []int { return nil }

func (c *jsonSchemaCodec) encodeRaw(dst, js []byte) ([]byte, error) { return append(dst, js...), nil }

func (c *jsonSchemaCodec) encode(dst []byte, value any) ([]byte, error) {
	if err := extraFields(c.doc, value, nil); err != nil {
		return dst, err
	}
	if err := c.schema.Validate(toValidator(value)); err != nil {
		return dst, validationErr(err)
	}
	b, err := json.Marshal(value)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func (c *jsonSchemaCodec) decode(payload []byte) (any, error) {
	v, err := parseJSON(payload)
	if err != nil {
		return nil, err
	}
	if err := c.schema.Validate(toValidator(v)); err != nil {
		return nil, validationErr(err)
	}
	return v, nil
}

// toValidator turns json.Numbers into what the validator takes (it reads
// json.Number too, but only from its own decoder's values: keep them).
func toValidator(v any) any { return v }

// validationErr is the validator's first leaf, with its path.
func validationErr(err error) error {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return &FieldError{Path: ve.InstanceLocation, Reason: strings.TrimSpace(ve.ErrorKind.LocalizedString(printer))}
}

// extraFields refuses an object field that the schema's properties do not
// name, where it names properties: a template field the schema lacks is a
// mistake in a benchmark, whatever additionalProperties allows.
func extraFields(schema, v any, path []string) error {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		props, ok := s["properties"].(map[string]any)
		if !ok {
			return nil
		}
		for _, k := range sortedKeys(v) {
			fv := v[k]
			ps, ok := props[k]
			if !ok {
				if _, pat := s["patternProperties"]; pat {
					continue
				}
				return &FieldError{Path: append(append([]string(nil), path...), k), Known: sortedKeys(props),
					Reason: "is not a property of the schema; remove it from the template or add it to the schema's properties"}
			}
			if err := extraFields(ps, fv, append(path, k)); err != nil {
				return err
			}
		}
	case []any:
		for i, it := range v {
			if err := extraFields(s["items"], it, append(path, fmt.Sprintf("[%d]", i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// countObjects counts the objects in a decoded JSON document, stopping at
// limit.
func countObjects(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n >= limit {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			n++
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}
