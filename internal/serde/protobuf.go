package serde

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// protoFile is the name an inline schema's text compiles under: its
// errors say "schema:LINE:COL".
const protoFile = "schema"

// protoCodec encodes the file's first message, as Confluent's serializer
// does for a schema registered from a .proto file (message index 0).
type protoCodec struct {
	md protoreflect.MessageDescriptor
}

func parseProtobuf(text, file string) (codec, string, error) {
	// The file's own name, so that errors say user.proto:2:27 (its base:
	// a path with .. is no import path).
	name := protoFile
	if file != "" {
		name = filepath.Base(file)
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{name: text}),
	})}
	files, err := c.Compile(context.Background(), name)
	if err != nil {
		return nil, "", fmt.Errorf("parse Protobuf schema: %w", err)
	}
	msgs := files[0].Messages()
	if msgs.Len() == 0 {
		return nil, "", fmt.Errorf("parse Protobuf schema: it defines no message")
	}
	md := msgs.Get(0)
	return &protoCodec{md: md}, string(md.FullName()), nil
}

func (c *protoCodec) index() []int { return []int{0} }

func (c *protoCodec) encode(dst []byte, value any) ([]byte, error) {
	m := dynamicpb.NewMessage(c.md)
	if err := fillMessage(m, value, nil); err != nil {
		return dst, err
	}
	b, err := proto.MarshalOptions{}.MarshalAppend(dst, m)
	if err != nil {
		return dst, fmt.Errorf("Protobuf encode: %w", err)
	}
	return b, nil
}

func (c *protoCodec) decode(payload []byte) (any, error) {
	m := dynamicpb.NewMessage(c.md)
	if err := proto.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("Protobuf decode: %w", err)
	}
	js, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("Protobuf decode: %w", err)
	}
	return parseJSON(js)
}

// fillMessage sets m's fields from a JSON object, by their proto names
// (or JSON names), failing with the path on a field the message lacks or
// a value of the wrong type. Proto3 fields absent from the template keep
// their zero value, as in Protobuf itself.
func fillMessage(m protoreflect.Message, v any, path []string) error {
	obj, ok := v.(map[string]any)
	md := m.Descriptor()
	if !ok {
		return fieldErr(path, "is %s; the schema wants message %s (an object)", jsonKind(v), md.FullName())
	}
	fields := md.Fields()
	for _, k := range sortedKeys(obj) {
		fv := obj[k]
		fd := fields.ByName(protoreflect.Name(k))
		if fd == nil {
			fd = fields.ByJSONName(k)
		}
		p := append(path, k)
		if fd == nil {
			known := make([]string, fields.Len())
			for i := range known {
				known[i] = string(fields.Get(i).Name())
			}
			return &FieldError{Path: append([]string(nil), p...), Known: known,
				Reason: fmt.Sprintf("is not a field of message %s; remove it from the template or add it to the schema", md.FullName())}
		}
		if fv == nil {
			continue
		}
		switch {
		case fd.IsList():
			arr, ok := fv.([]any)
			if !ok {
				return fieldErr(p, "is %s; the schema wants a repeated %s (an array)", jsonKind(fv), fd.Kind())
			}
			l := m.Mutable(fd).List()
			for i, it := range arr {
				ip := append(p, "["+strconv.Itoa(i)+"]")
				if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
					e := l.NewElement()
					if err := fillMessage(e.Message(), it, ip); err != nil {
						return err
					}
					l.Append(e)
					continue
				}
				pv, err := protoScalar(fd, it, ip)
				if err != nil {
					return err
				}
				l.Append(pv)
			}
		case fd.IsMap():
			mo, ok := fv.(map[string]any)
			if !ok {
				return fieldErr(p, "is %s; the schema wants a map (an object)", jsonKind(fv))
			}
			mp := m.Mutable(fd).Map()
			for mk, it := range mo {
				key, err := protoScalar(fd.MapKey(), mapKeyJSON(fd.MapKey(), mk), append(p, mk))
				if err != nil {
					return err
				}
				vd := fd.MapValue()
				if vd.Kind() == protoreflect.MessageKind {
					e := mp.NewValue()
					if err := fillMessage(e.Message(), it, append(p, mk)); err != nil {
						return err
					}
					mp.Set(key.MapKey(), e)
					continue
				}
				pv, err := protoScalar(vd, it, append(p, mk))
				if err != nil {
					return err
				}
				mp.Set(key.MapKey(), pv)
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if err := fillMessage(m.Mutable(fd).Message(), fv, p); err != nil {
				return err
			}
		default:
			pv, err := protoScalar(fd, fv, p)
			if err != nil {
				return err
			}
			m.Set(fd, pv)
		}
	}
	return nil
}

// mapKeyJSON turns an object key into the JSON value of the map's key type.
func mapKeyJSON(fd protoreflect.FieldDescriptor, k string) any {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return k
	case protoreflect.BoolKind:
		return k == "true"
	}
	return json.Number(k)
}

func protoScalar(fd protoreflect.FieldDescriptor, v any, path []string) (protoreflect.Value, error) {
	bad := func() (protoreflect.Value, error) {
		return protoreflect.Value{}, fieldErr(path, "is %s; the schema wants %s", jsonKind(v), fd.Kind())
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		if s, ok := v.(string); ok {
			return protoreflect.ValueOfString(s), nil
		}
	case protoreflect.BytesKind:
		if s, ok := v.(string); ok {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				return protoreflect.ValueOfBytes(b), nil
			}
			return protoreflect.ValueOfBytes([]byte(s)), nil
		}
	case protoreflect.BoolKind:
		if b, ok := v.(bool); ok {
			return protoreflect.ValueOfBool(b), nil
		}
	case protoreflect.EnumKind:
		switch x := v.(type) {
		case string:
			if ev := fd.Enum().Values().ByName(protoreflect.Name(x)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
			return protoreflect.Value{}, fieldErr(path, "is %q, not a value of enum %s", x, fd.Enum().FullName())
		case json.Number:
			if i, err := strconv.ParseInt(string(x), 10, 32); err == nil {
				return protoreflect.ValueOfEnum(protoreflect.EnumNumber(i)), nil
			}
		}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if n, ok := v.(json.Number); ok {
			f, err := n.Float64()
			if err != nil {
				return bad()
			}
			if fd.Kind() == protoreflect.FloatKind {
				return protoreflect.ValueOfFloat32(float32(f)), nil
			}
			return protoreflect.ValueOfFloat64(f), nil
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		i, ok := protoInt(v)
		if !ok {
			return protoreflect.Value{}, fieldErr(path, "is %s, not a whole number; the schema wants %s", jsonKind(v), fd.Kind())
		}
		if fd.Kind() == protoreflect.Int32Kind || fd.Kind() == protoreflect.Sint32Kind || fd.Kind() == protoreflect.Sfixed32Kind {
			if i < math.MinInt32 || i > math.MaxInt32 {
				return protoreflect.Value{}, fieldErr(path, "is %d, out of a 32-bit field's range; make it int64", i)
			}
			return protoreflect.ValueOfInt32(int32(i)), nil
		}
		return protoreflect.ValueOfInt64(i), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		i, ok := protoInt(v)
		if !ok || i < 0 {
			return protoreflect.Value{}, fieldErr(path, "is %s, not a whole number from 0; the schema wants %s", jsonKind(v), fd.Kind())
		}
		if fd.Kind() == protoreflect.Uint32Kind || fd.Kind() == protoreflect.Fixed32Kind {
			if i > math.MaxUint32 {
				return protoreflect.Value{}, fieldErr(path, "is %d, out of a 32-bit field's range", i)
			}
			return protoreflect.ValueOfUint32(uint32(i)), nil
		}
		return protoreflect.ValueOfUint64(uint64(i)), nil
	}
	return bad()
}

// protoInt reads a whole number, also from text (protojson writes 64-bit
// integers as strings).
func protoInt(v any) (int64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return 0, false
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}
