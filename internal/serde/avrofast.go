package serde

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/hamba/avro/v2"
)

// avroEnc appends the Avro binary of one JSON value span: the fast path,
// straight from the template's bytes to Avro with no maps in between (the
// checks' path, toAvro, builds maps and words its errors better; both are
// tested to give the same bytes). Its errors carry the field's path too.
type avroEnc func(dst, v []byte) ([]byte, error)

// compileAvro builds the fast encoder of a schema; ok is false when some
// part of it (a default the fast path cannot pre-encode) needs the slow
// path.
func compileAvro(s avro.Schema) (enc avroEnc, ok bool) {
	c := avroCompiler{named: map[string]*avroEnc{}}
	enc = c.compile(s)
	return enc, !c.failed
}

type avroCompiler struct {
	named  map[string]*avroEnc // records by full name, for recursive references
	failed bool
}

func (c *avroCompiler) compile(s avro.Schema) avroEnc {
	switch s := s.(type) {
	case *avro.RefSchema:
		name := s.Schema().FullName()
		if p, ok := c.named[name]; ok {
			return func(dst, v []byte) ([]byte, error) { return (*p)(dst, v) }
		}
		return c.compile(s.Schema())
	case *avro.RecordSchema:
		return c.record(s)
	case *avro.UnionSchema:
		return c.union(s)
	case *avro.ArraySchema:
		item := c.compile(s.Items())
		return func(dst, v []byte) ([]byte, error) {
			if kindOf(v) != '[' {
				return dst, fieldErr(nil, "is %s; the schema wants an array", kindName(v))
			}
			n := 0
			if err := eachItem(v, func([]byte) error { n++; return nil }); err != nil {
				return dst, err
			}
			if n > 0 {
				dst = binary.AppendVarint(dst, int64(n))
				i := 0
				err := eachItem(v, func(it []byte) error {
					var err error
					dst, err = item(dst, it)
					if err != nil {
						err = under("["+strconv.Itoa(i)+"]", err)
					}
					i++
					return err
				})
				if err != nil {
					return dst, err
				}
			}
			return append(dst, 0), nil
		}
	case *avro.MapSchema:
		val := c.compile(s.Values())
		return func(dst, v []byte) ([]byte, error) {
			if kindOf(v) != '{' {
				return dst, fieldErr(nil, "is %s; the schema wants a map (an object)", kindName(v))
			}
			n := 0
			if err := eachMember(v, func(_, _ []byte) error { n++; return nil }); err != nil {
				return dst, err
			}
			if n > 0 {
				dst = binary.AppendVarint(dst, int64(n))
				err := eachMember(v, func(k, it []byte) error {
					dst = binary.AppendVarint(dst, int64(len(k)))
					dst = append(dst, k...)
					var err error
					dst, err = val(dst, it)
					return under(string(k), err)
				})
				if err != nil {
					return dst, err
				}
			}
			return append(dst, 0), nil
		}
	case *avro.EnumSchema:
		syms := map[string]int64{}
		for i, sym := range s.Symbols() {
			syms[sym] = int64(i)
		}
		return func(dst, v []byte) ([]byte, error) {
			str, err := stringOf(v, "enum "+s.FullName())
			if err != nil {
				return dst, err
			}
			i, ok := syms[string(str)]
			if !ok {
				return dst, fieldErr(nil, "is %q, not a symbol of enum %s %v", str, s.FullName(), s.Symbols())
			}
			return binary.AppendVarint(dst, i), nil
		}
	case *avro.FixedSchema:
		size := s.Size()
		return func(dst, v []byte) ([]byte, error) {
			str, err := stringOf(v, "fixed "+s.FullName())
			if err != nil || len(str) != size {
				return dst, fieldErr(nil, "is %s; the schema wants fixed %s (a string of %d bytes)", kindName(v), s.FullName(), size)
			}
			return append(dst, str...), nil
		}
	case *avro.NullSchema:
		return func(dst, v []byte) ([]byte, error) {
			if kindOf(v) != 'n' {
				return dst, fieldErr(nil, "is %s; the schema wants null", kindName(v))
			}
			return dst, nil
		}
	case *avro.PrimitiveSchema:
		return c.primitive(s)
	}
	c.failed = true
	return nil
}

func (c *avroCompiler) record(s *avro.RecordSchema) avroEnc {
	type field struct {
		name   string
		enc    avroEnc
		def    []byte
		hasDef bool
	}
	var self avroEnc
	c.named[s.FullName()] = &self
	fields := make([]field, len(s.Fields()))
	index := make(map[string]int, len(fields))
	for i, f := range s.Fields() {
		fields[i] = field{name: f.Name(), enc: c.compile(f.Type())}
		index[f.Name()] = i
		if f.HasDefault() {
			def, err := avroAPI.Marshal(f.Type(), defaultValue(f))
			if err != nil {
				c.failed = true
			}
			fields[i].def, fields[i].hasDef = def, true
		}
	}
	name := s.FullName()
	self = func(dst, v []byte) ([]byte, error) {
		if kindOf(v) != '{' {
			return dst, fieldErr(nil, "is %s; the schema wants record %s (an object)", kindName(v), name)
		}
		var buf [16][]byte
		got := buf[:0]
		if len(fields) <= len(buf) {
			got = buf[:len(fields)]
		} else {
			got = make([][]byte, len(fields))
		}
		next := 0 // templates usually render the fields in the schema's order
		err := eachMember(v, func(k, val []byte) error {
			i, ok := next, next < len(fields) && string(k) == fields[next].name
			if !ok {
				i, ok = index[string(k)]
			}
			next = i + 1
			if !ok {
				return fieldErr([]string{string(k)}, "is not a field of record %s; remove it from the template or add it to the schema", name)
			}
			got[i] = val
			return nil
		})
		if err != nil {
			return dst, err
		}
		for i, f := range fields {
			if got[i] == nil {
				if f.hasDef {
					dst = append(dst, f.def...)
					continue
				}
				return dst, fieldErr([]string{f.name}, "is missing: record %s's field %s has no default; add it to the template", name, f.name)
			}
			if dst, err = f.enc(dst, got[i]); err != nil {
				return dst, under(f.name, err)
			}
		}
		return dst, nil
	}
	return self
}

// defaultValue is a field's default as hamba/avro encodes it: a union's
// in its map form.
func defaultValue(f *avro.Field) any {
	d := f.Default()
	if u, ok := f.Type().(*avro.UnionSchema); ok && d != nil {
		return map[string]any{unionName(u.Types()[0]): d}
	}
	return d
}

func (c *avroCompiler) union(s *avro.UnionSchema) avroEnc {
	types := s.Types()
	encs := make([]avroEnc, len(types))
	nullAt := -1
	for i, t := range types {
		if t.Type() == avro.Null {
			nullAt = i
			continue
		}
		encs[i] = c.compile(t)
	}
	return func(dst, v []byte) ([]byte, error) {
		if kindOf(v) == 'n' {
			if nullAt < 0 {
				return dst, fieldErr(nil, "is null; the union has no null branch")
			}
			return binary.AppendVarint(dst, int64(nullAt)), nil
		}
		var first error
		for i, enc := range encs {
			if enc == nil {
				continue
			}
			n := len(dst)
			out, err := enc(binary.AppendVarint(dst, int64(i)), v)
			if err == nil {
				return out, nil
			}
			if first == nil {
				first = err
			}
			dst = dst[:n]
		}
		return dst, first
	}
}

func (c *avroCompiler) primitive(s *avro.PrimitiveSchema) avroEnc {
	want := string(s.Type())
	if l := s.Logical(); l != nil {
		switch lt := l.Type(); lt {
		case avro.TimestampMillis, avro.TimestampMicros, avro.LocalTimestampMillis, avro.LocalTimestampMicros, avro.Date:
			return func(dst, v []byte) ([]byte, error) {
				switch kindOf(v) {
				case '0':
					if i, ok := parseInt(v); ok {
						return binary.AppendVarint(dst, i), nil
					}
				case '"':
					str, _ := jsonString(v)
					if t, err := time.Parse(time.RFC3339Nano, string(str)); err == nil {
						switch lt {
						case avro.TimestampMicros, avro.LocalTimestampMicros:
							return binary.AppendVarint(dst, t.UnixMicro()), nil
						case avro.Date:
							return binary.AppendVarint(dst, t.Unix()/86400), nil
						}
						return binary.AppendVarint(dst, t.UnixMilli()), nil
					}
				}
				return dst, fieldErr(nil, "is %s; the schema wants %s.%s (epoch milliseconds or RFC 3339 text)", kindName(v), s.Type(), lt)
			}
		}
	}
	switch s.Type() {
	case avro.String, avro.Bytes:
		return func(dst, v []byte) ([]byte, error) {
			if kindOf(v) != '"' {
				return dst, fieldErr(nil, "is %s; the schema wants %s", kindName(v), want)
			}
			str, err := jsonString(v)
			if err != nil {
				return dst, err
			}
			dst = binary.AppendVarint(dst, int64(len(str)))
			return append(dst, str...), nil
		}
	case avro.Boolean:
		return func(dst, v []byte) ([]byte, error) {
			switch string(v) {
			case "true":
				return append(dst, 1), nil
			case "false":
				return append(dst, 0), nil
			}
			return dst, fieldErr(nil, "is %s; the schema wants boolean", kindName(v))
		}
	case avro.Int, avro.Long:
		isInt := s.Type() == avro.Int
		return func(dst, v []byte) ([]byte, error) {
			if kindOf(v) != '0' {
				return dst, fieldErr(nil, "is %s; the schema wants %s", kindName(v), want)
			}
			i, ok := parseInt(v)
			if !ok {
				return dst, fieldErr(nil, "is %s, not a whole number; the schema wants %s", v, want)
			}
			if isInt && (i < math.MinInt32 || i > math.MaxInt32) {
				return dst, fieldErr(nil, "is %d, out of an Avro int's range; make the field a long", i)
			}
			return binary.AppendVarint(dst, i), nil
		}
	case avro.Float, avro.Double:
		bits := 64
		if s.Type() == avro.Float {
			bits = 32
		}
		return func(dst, v []byte) ([]byte, error) {
			if kindOf(v) != '0' {
				return dst, fieldErr(nil, "is %s; the schema wants %s", kindName(v), want)
			}
			f, err := strconv.ParseFloat(string(v), bits)
			if err != nil {
				return dst, fieldErr(nil, "is %s: %v", v, err)
			}
			if bits == 32 {
				return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
			}
			return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
		}
	}
	c.failed = true
	return nil
}

// parseInt reads a JSON whole number without allocating.
func parseInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

func stringOf(v []byte, want string) ([]byte, error) {
	if kindOf(v) != '"' {
		return nil, fieldErr(nil, "is %s; the schema wants %s (a string)", kindName(v), want)
	}
	return jsonString(v)
}

// kindName names a JSON value span's type for errors, as jsonKind does.
func kindName(v []byte) string {
	switch kindOf(v) {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case '0':
		return "a number"
	}
	return "empty"
}
