package serde

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hamba/avro/v2"
)

// maxQuoted is the most of a parser's message kept: enough for the part of
// the schema it quotes to be recognised.
const maxQuoted = 300

type avroCodec struct {
	schema avro.Schema
	fast   avroEnc // nil: every value takes the slow path
}

// avroAPI encodes from the converted values; a frozen config is safe for
// concurrent use.
var avroAPI = avro.Config{}.Freeze()

func parseAvro(text string) (codec, string, error) {
	s, err := avro.ParseWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		// hamba/avro quotes the part it did not understand whole: up to
		// the whole schema.
		msg := err.Error()
		if len(msg) > maxQuoted {
			msg = msg[:maxQuoted] + "…"
		}
		return nil, "", fmt.Errorf("parse Avro schema: %s", msg)
	}
	if err := checkAvroCost(s); err != nil {
		return nil, "", err
	}
	name := ""
	if n, ok := s.(avro.NamedSchema); ok {
		name = n.FullName()
	}
	c := &avroCodec{schema: s}
	if enc, ok := compileAvro(s); ok {
		c.fast = enc
	}
	return c, name, nil
}

// encodeRaw encodes straight from the rendered JSON (the run's path).
func (c *avroCodec) encodeRaw(dst, js []byte) ([]byte, error) {
	if c.fast == nil {
		v, err := parseJSON(js)
		if err != nil {
			return dst, err
		}
		return c.encode(dst, v)
	}
	return c.fast(dst, js)
}

func (c *avroCodec) index() []int { return nil }

func (c *avroCodec) encode(dst []byte, value any) ([]byte, error) {
	v, err := toAvro(c.schema, value, nil)
	if err != nil {
		return dst, err
	}
	b, err := avroAPI.Marshal(c.schema, v)
	if err != nil {
		return dst, fmt.Errorf("Avro encode: %w", err)
	}
	return append(dst, b...), nil
}

func (c *avroCodec) decode(payload []byte) (any, error) {
	var v any
	if err := avroAPI.Unmarshal(c.schema, payload, &v); err != nil {
		return nil, fmt.Errorf("Avro decode: %w", err)
	}
	return v, nil
}

// toAvro converts a JSON value to what hamba/avro encodes for schema s,
// failing with the field's path when it does not fit: a template field the
// record lacks, a record field without a default the template lacks, or a
// value of the wrong type.
func toAvro(s avro.Schema, v any, path []string) (any, error) {
	switch s := s.(type) {
	case *avro.RefSchema:
		return toAvro(s.Schema(), v, path)
	case *avro.RecordSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fieldErr(path, "is %s; the schema wants record %s (an object)", jsonKind(v), s.FullName())
		}
		// A template field the record lacks first: a misspelt field
		// (qtty) is also a missing one (qty), and the place to fix it,
		// with a did-you-mean, is the misspelt key.
		if len(obj) > 0 {
			names := make([]string, len(s.Fields()))
			has := make(map[string]bool, len(names))
			for i, f := range s.Fields() {
				names[i], has[f.Name()] = f.Name(), true
			}
			for _, k := range sortedKeys(obj) {
				if !has[k] {
					return nil, &FieldError{Path: append(append([]string(nil), path...), k), Known: names,
						Reason: fmt.Sprintf("is not a field of record %s; remove it from the template or add it to the schema", s.FullName())}
				}
			}
		}
		out := make(map[string]any, len(s.Fields()))
		for _, f := range s.Fields() {
			fv, ok := obj[f.Name()]
			if !ok {
				if f.HasDefault() {
					out[f.Name()] = f.Default()
					continue
				}
				return nil, fieldErr(append(path, f.Name()), "is missing: record %s's field %s has no default; add it to the template", s.FullName(), f.Name())
			}
			cv, err := toAvro(f.Type(), fv, append(path, f.Name()))
			if err != nil {
				return nil, err
			}
			out[f.Name()] = cv
		}
		return out, nil
	case *avro.UnionSchema:
		if v == nil {
			for _, t := range s.Types() {
				if t.Type() == avro.Null {
					return nil, nil
				}
			}
			return nil, fieldErr(path, "is null; the union has no null branch")
		}
		var first error
		for _, t := range s.Types() {
			if t.Type() == avro.Null {
				continue
			}
			cv, err := toAvro(t, v, path)
			if err == nil {
				return map[string]any{unionName(t): cv}, nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	case *avro.ArraySchema:
		arr, ok := v.([]any)
		if !ok {
			return nil, fieldErr(path, "is %s; the schema wants an array", jsonKind(v))
		}
		out := make([]any, len(arr))
		for i, it := range arr {
			cv, err := toAvro(s.Items(), it, append(path, "["+strconv.Itoa(i)+"]"))
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	case *avro.MapSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fieldErr(path, "is %s; the schema wants a map (an object)", jsonKind(v))
		}
		out := make(map[string]any, len(obj))
		for k, it := range obj {
			cv, err := toAvro(s.Values(), it, append(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = cv
		}
		return out, nil
	case *avro.EnumSchema:
		str, ok := v.(string)
		if !ok {
			return nil, fieldErr(path, "is %s; the schema wants enum %s (a string)", jsonKind(v), s.FullName())
		}
		for _, sym := range s.Symbols() {
			if sym == str {
				return str, nil
			}
		}
		return nil, fieldErr(path, "is %q, not a symbol of enum %s %v", str, s.FullName(), s.Symbols())
	case *avro.FixedSchema:
		str, ok := v.(string)
		if !ok || len(str) != s.Size() {
			return nil, fieldErr(path, "is %s; the schema wants fixed %s (a string of %d bytes)", jsonKind(v), s.FullName(), s.Size())
		}
		b := make([]byte, s.Size())
		copy(b, str)
		return toFixedArray(b), nil
	case *avro.PrimitiveSchema:
		return avroPrimitive(s, v, path)
	case *avro.NullSchema:
		if v != nil {
			return nil, fieldErr(path, "is %s; the schema wants null", jsonKind(v))
		}
		return nil, nil
	}
	return nil, fieldErr(path, "has Avro type %s, which templates do not fill", s.Type())
}

// toFixedArray is the value hamba/avro encodes for a fixed: an array of
// its size (sizes up to 64 here; larger ones as a slice, which it
// refuses with its own message).
func toFixedArray(b []byte) any {
	switch len(b) {
	case 16:
		return [16]byte(b)
	case 8:
		return [8]byte(b)
	case 4:
		return [4]byte(b)
	case 32:
		return [32]byte(b)
	}
	return b
}

func unionName(s avro.Schema) string {
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	if r, ok := s.(*avro.RefSchema); ok {
		return r.Schema().FullName()
	}
	if p, ok := s.(*avro.PrimitiveSchema); ok && p.Logical() != nil {
		return string(p.Type()) + "." + string(p.Logical().Type())
	}
	return string(s.Type())
}

func avroPrimitive(s *avro.PrimitiveSchema, v any, path []string) (any, error) {
	want := string(s.Type())
	if l := s.Logical(); l != nil {
		switch l.Type() {
		case avro.TimestampMillis, avro.TimestampMicros, avro.LocalTimestampMillis, avro.LocalTimestampMicros, avro.Date:
			return avroTime(s, l.Type(), v, path)
		}
	}
	switch s.Type() {
	case avro.String:
		if str, ok := v.(string); ok {
			return str, nil
		}
	case avro.Bytes:
		if str, ok := v.(string); ok {
			return []byte(str), nil
		}
	case avro.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case avro.Int, avro.Long:
		n, ok := v.(json.Number)
		if !ok {
			break
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, fieldErr(path, "is %s, not a whole number; the schema wants %s", n, want)
		}
		if s.Type() == avro.Int {
			if i < math.MinInt32 || i > math.MaxInt32 {
				return nil, fieldErr(path, "is %d, out of an Avro int's range; make the field a long", i)
			}
			return int(i), nil
		}
		return i, nil
	case avro.Float, avro.Double:
		n, ok := v.(json.Number)
		if !ok {
			break
		}
		f, err := n.Float64()
		if err != nil {
			return nil, fieldErr(path, "is %s: %v", n, err)
		}
		if s.Type() == avro.Float {
			return float32(f), nil
		}
		return f, nil
	}
	return nil, fieldErr(path, "is %s; the schema wants %s", jsonKind(v), want)
}

// avroTime reads a time from epoch milliseconds (a number, as the now
// generator's default gives) or RFC 3339 text.
func avroTime(s *avro.PrimitiveSchema, lt avro.LogicalType, v any, path []string) (any, error) {
	switch v := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			break
		}
		switch lt {
		case avro.TimestampMicros, avro.LocalTimestampMicros:
			return time.UnixMicro(i).UTC(), nil
		case avro.Date:
			return time.Unix(i*86400, 0).UTC(), nil
		}
		return time.UnixMilli(i).UTC(), nil
	case string:
		t, err := time.Parse(time.RFC3339Nano, v)
		if err == nil {
			return t, nil
		}
	}
	return nil, fieldErr(path, "is %s; the schema wants %s.%s (epoch milliseconds or RFC 3339 text)", jsonKind(v), s.Type(), lt)
}
