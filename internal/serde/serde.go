// Package serde encodes template-rendered records in schema formats (Avro,
// JSON Schema, Protobuf) framed for a Confluent-compatible schema registry
// (a magic byte and a 4-byte schema id before the payload), and decodes
// them again. Learn Schema (Parse, Encode, Decode) first, then Registry.
//
// A record starts as the JSON a payload template renders; Encode converts
// it to the schema's binary form, checking every field against the schema,
// so that a template that does not fit its schema is found by Check before
// a run, with the field's path, rather than at record 1,000,000.
package serde

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"
)

// Format is a schema format, as a plan writes it.
type Format string

// The schema formats.
const (
	Avro       Format = "avro"
	JSONSchema Format = "json_schema"
	Protobuf   Format = "protobuf"
)

// Formats are the plan's names, in the order docs list them.
var Formats = []string{string(Avro), string(JSONSchema), string(Protobuf)}

// SchemaType is the registry's name of the format.
func (f Format) SchemaType() sr.SchemaType {
	switch f {
	case JSONSchema:
		return sr.TypeJSON
	case Protobuf:
		return sr.TypeProtobuf
	}
	return sr.TypeAvro
}

// FileExt is the schema file's usual extension.
func (f Format) FileExt() string {
	return map[Format]string{Avro: ".avsc", JSONSchema: ".json", Protobuf: ".proto"}[f]
}

// Schema is a parsed schema that encodes and decodes one record type.
type Schema struct {
	Format Format
	Text   string
	// Name is the record's fully-qualified name: an Avro record's
	// namespace.name, a Protobuf message's package.Message, a JSON
	// schema's title (RecordNameStrategy subjects use it).
	Name  string
	codec codec
}

// codec is one format's conversion of rendered JSON to its payload and
// back (without the registry framing).
type codec interface {
	// encode appends value's payload to dst. value is a decoded JSON value
	// (objects as map[string]any, numbers as json.Number).
	encode(dst []byte, value any) ([]byte, error)
	// decode reads one payload into a JSON-like value.
	decode(payload []byte) (any, error)
	// index is the Protobuf message indexes framed after the id (nil).
	index() []int
}

// Parse parses a schema of the given format.
func Parse(f Format, text string) (*Schema, error) { return ParseFile(f, "", text) }

// ParseFile parses a schema read from file (as the user named it: its
// errors name it; "" for a schema given inline or by a registry).
func ParseFile(f Format, file, text string) (*Schema, error) {
	var c codec
	var name string
	var err error
	if f == Avro || f == JSONSchema || f == Protobuf {
		if err := checkSize(text); err != nil {
			return nil, err
		}
	}
	if f == Avro || f == JSONSchema {
		if err := checkJSONText(text); err != nil {
			return nil, err
		}
	}
	switch f {
	case Avro:
		c, name, err = parseAvro(text)
	case JSONSchema:
		c, name, err = parseJSONSchema(text, file)
	case Protobuf:
		c, name, err = parseProtobuf(text, file)
	default:
		return nil, fmt.Errorf("unknown schema format %q; use one of %s", f, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, err
	}
	return &Schema{Format: f, Text: text, Name: name, codec: c}, nil
}

// FieldError is a value that does not fit its schema, at a field path
// ("user.age", "items[2].sku"; "" is the whole value).
type FieldError struct {
	Path   []string // field names; "[2]" for an array item
	Reason string
	// Known are the field names the schema has where a template field it
	// lacks was found, for a did-you-mean (nil for other errors).
	Known []string
}

func (e *FieldError) Error() string {
	if len(e.Path) == 0 {
		return e.Reason
	}
	return e.PathString() + ": " + e.Reason
}

// PathString joins the path: "user.age", "items[2].sku".
func (e *FieldError) PathString() string {
	var b strings.Builder
	for _, p := range e.Path {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func fieldErr(path []string, format string, args ...any) error {
	return &FieldError{Path: append([]string(nil), path...), Reason: fmt.Sprintf(format, args...)}
}

// under prefixes a FieldError's path with name.
func under(name string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		fe.Path = append([]string{name}, fe.Path...)
		return fe
	}
	return err
}

// EncodeJSON appends the payload of one rendered JSON value, unframed,
// checking it against the schema field by field (Check's path).
func (s *Schema) EncodeJSON(dst, js []byte) ([]byte, error) {
	v, err := parseJSON(js)
	if err != nil {
		return dst, err
	}
	return s.codec.encode(dst, v)
}

// rawEncoder is a codec with a faster path from the rendered bytes, used
// while records are sent (the template was checked before).
type rawEncoder interface {
	encodeRaw(dst, js []byte) ([]byte, error)
}

// EncodeRaw is EncodeJSON by the codec's fastest path: the same bytes, and
// an error for a value that does not fit, perhaps worded less precisely.
func (s *Schema) EncodeRaw(dst, js []byte) ([]byte, error) {
	if r, ok := s.codec.(rawEncoder); ok {
		return r.encodeRaw(dst, js)
	}
	return s.EncodeJSON(dst, js)
}

// Frame appends the registry framing: magic byte 0, the schema id (4
// bytes, big-endian), and for Protobuf the message indexes.
func (s *Schema) Frame(dst []byte, id int) []byte {
	dst = append(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(id))
	if idx := s.codec.index(); idx != nil {
		// Confluent's shortcut: the first message is a single 0.
		if len(idx) == 1 && idx[0] == 0 {
			return append(dst, 0)
		}
		dst = binary.AppendVarint(dst, int64(len(idx)))
		for _, i := range idx {
			dst = binary.AppendVarint(dst, int64(i))
		}
	}
	return dst
}

// Encode appends a framed record: Frame, then the payload of js.
func (s *Schema) Encode(dst []byte, id int, js []byte) ([]byte, error) {
	return s.EncodeJSON(s.Frame(dst, id), js)
}

// ErrNotFramed is a value that does not start with the registry framing.
var ErrNotFramed = errors.New("not framed for a schema registry (no magic byte 0 and schema id)")

// SchemaID reads the schema id of a framed value, and the rest.
func SchemaID(b []byte) (int, []byte, error) {
	if len(b) < 5 || b[0] != 0 {
		return 0, nil, ErrNotFramed
	}
	return int(binary.BigEndian.Uint32(b[1:5])), b[5:], nil
}

// DecodePayload decodes a payload that follows the schema id (for
// Protobuf, the message indexes come first).
func (s *Schema) DecodePayload(b []byte) (any, error) {
	if s.Format == Protobuf {
		var err error
		if b, err = skipIndexes(b); err != nil {
			return nil, err
		}
	}
	return s.codec.decode(b)
}

func skipIndexes(b []byte) ([]byte, error) {
	n, k := binary.Varint(b)
	if k <= 0 || n < 0 || n > 100 {
		return nil, errors.New("bad Protobuf message indexes")
	}
	b = b[k:]
	for range n {
		_, k := binary.Varint(b)
		if k <= 0 {
			return nil, errors.New("bad Protobuf message indexes")
		}
		b = b[k:]
	}
	return b, nil
}
