package serde

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// encodeRaw writes the Protobuf wire format straight from the rendered
// JSON (the run's path; fillMessage and dynamicpb are Check's), fields in
// the template's order, zero values of fields without presence left out
// as proto.Marshal leaves them. Tested to decode to what the checked path
// gives.
func (c *protoCodec) encodeRaw(dst, js []byte) ([]byte, error) {
	return protoMessage(dst, c.md, js)
}

func protoMessage(dst []byte, md protoreflect.MessageDescriptor, v []byte) ([]byte, error) {
	if kindOf(v) != '{' {
		return dst, fieldErr(nil, "is %s; the schema wants message %s (an object)", kindName(v), md.FullName())
	}
	fields := fieldsOf(md)
	err := eachMember(v, func(k, val []byte) error {
		fd := fields[string(k)]
		if fd == nil {
			return fieldErr([]string{string(k)}, "is not a field of message %s; remove it from the template or add it to the schema", md.FullName())
		}
		if kindOf(val) == 'n' {
			return nil
		}
		var err error
		if dst, err = protoField(dst, fd, val); err != nil {
			return under(string(k), err) // only then: it allocates
		}
		return nil
	})
	return dst, err
}

func protoField(dst []byte, fd protoreflect.FieldDescriptor, v []byte) ([]byte, error) {
	num := fd.Number()
	switch {
	case fd.IsMap():
		if kindOf(v) != '{' {
			return dst, fieldErr(nil, "is %s; the schema wants a map (an object)", kindName(v))
		}
		return dst, eachMember(v, func(k, val []byte) error {
			dst = protowire.AppendTag(dst, num, protowire.BytesType)
			at := len(dst)
			var err error
			key := []byte(strconv.Quote(string(k)))
			if fd.MapKey().Kind() != protoreflect.StringKind {
				key = k
			}
			if dst, err = protoScalarWire(dst, fd.MapKey(), key, true); err != nil {
				return under(string(k), err)
			}
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				dst = protowire.AppendTag(dst, 2, protowire.BytesType)
				if dst, err = protoNested(dst, fd.MapValue().Message(), val); err != nil {
					return under(string(k), err)
				}
			} else if dst, err = protoScalarWire(dst, fd.MapValue(), val, true); err != nil {
				return under(string(k), err)
			}
			dst = prefixLength(dst, at)
			return nil
		})
	case fd.IsList():
		if kindOf(v) != '[' {
			return dst, fieldErr(nil, "is %s; the schema wants a repeated %s (an array)", kindName(v), fd.Kind())
		}
		i := 0
		packed := fd.IsPacked()
		at := 0
		if packed {
			dst = protowire.AppendTag(dst, num, protowire.BytesType)
			at = len(dst)
		}
		err := eachItem(v, func(it []byte) error {
			var err error
			switch {
			case fd.Kind() == protoreflect.MessageKind:
				dst = protowire.AppendTag(dst, num, protowire.BytesType)
				dst, err = protoNested(dst, fd.Message(), it)
			case packed:
				dst, err = protoValue(dst, fd, it)
			default:
				dst, err = protoScalarWire(dst, fd, it, true)
			}
			if err != nil {
				err = under("["+strconv.Itoa(i)+"]", err)
			}
			i++
			return err
		})
		if err != nil {
			return dst, err
		}
		if packed {
			dst = prefixLength(dst, at)
		}
		return dst, nil
	case fd.Kind() == protoreflect.MessageKind:
		dst = protowire.AppendTag(dst, num, protowire.BytesType)
		return protoNested(dst, fd.Message(), v)
	}
	return protoScalarWire(dst, fd, v, fd.HasPresence())
}

// fieldIndex holds each message's fields by proto and JSON name, made
// once: the descriptors' own lookups convert every name to a string.
var fieldIndex sync.Map // the descriptor itself (two schemas may share a name) → map[string]protoreflect.FieldDescriptor

func fieldsOf(md protoreflect.MessageDescriptor) map[string]protoreflect.FieldDescriptor {
	if m, ok := fieldIndex.Load(md); ok {
		return m.(map[string]protoreflect.FieldDescriptor)
	}
	fs := md.Fields()
	m := make(map[string]protoreflect.FieldDescriptor, 2*fs.Len())
	for i := range fs.Len() {
		fd := fs.Get(i)
		m[fd.JSONName()] = fd
	}
	for i := range fs.Len() {
		fd := fs.Get(i)
		m[string(fd.Name())] = fd // a proto name wins over a JSON name
	}
	fieldIndex.Store(md, m)
	return m
}

// protoNested appends a length-prefixed message.
func protoNested(dst []byte, md protoreflect.MessageDescriptor, v []byte) ([]byte, error) {
	at := len(dst)
	dst, err := protoMessage(dst, md, v)
	if err != nil {
		return dst, err
	}
	return prefixLength(dst, at), nil
}

// prefixLength inserts the length of dst[at:] as a varint at at.
func prefixLength(dst []byte, at int) []byte {
	n := len(dst) - at
	var lb [binary.MaxVarintLen64]byte
	l := protowire.AppendVarint(lb[:0], uint64(n))
	dst = append(dst, l...)
	copy(dst[at+len(l):], dst[at:at+n])
	copy(dst[at:], l)
	return dst
}

// protoScalarWire appends a tagged scalar; keep writes a zero value too
// (fields with presence, list items, map entries).
func protoScalarWire(dst []byte, fd protoreflect.FieldDescriptor, v []byte, keep bool) ([]byte, error) {
	n := len(dst)
	dst = protowire.AppendTag(dst, fd.Number(), wireType(fd.Kind()))
	body := len(dst)
	dst, err := protoValue(dst, fd, v)
	if err != nil {
		return dst[:n], err
	}
	if !keep && isZero(fd.Kind(), dst[body:]) {
		return dst[:n], nil
	}
	return dst, nil
}

// isZero reports whether an encoded scalar is its type's zero value.
func isZero(k protoreflect.Kind, b []byte) bool {
	switch wireType(k) {
	case protowire.BytesType:
		return len(b) == 1 && b[0] == 0
	case protowire.VarintType:
		return len(b) == 1 && b[0] == 0
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func wireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return protowire.Fixed32Type
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

// protoValue appends one scalar value without its tag.
func protoValue(dst []byte, fd protoreflect.FieldDescriptor, v []byte) ([]byte, error) {
	k := fd.Kind()
	bad := func() ([]byte, error) {
		return dst, fieldErr(nil, "is %s; the schema wants %s", kindName(v), k)
	}
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind:
		if kindOf(v) != '"' {
			return bad()
		}
		s, err := jsonString(v)
		if err != nil {
			return dst, err
		}
		if k == protoreflect.BytesKind {
			if b, err := base64.StdEncoding.DecodeString(string(s)); err == nil {
				s = b
			}
		}
		return protowire.AppendBytes(dst, s), nil
	case protoreflect.BoolKind:
		switch string(v) {
		case "true":
			return protowire.AppendVarint(dst, 1), nil
		case "false":
			return protowire.AppendVarint(dst, 0), nil
		}
		return bad()
	case protoreflect.EnumKind:
		if kindOf(v) == '"' {
			s, _ := jsonString(v)
			ev := fd.Enum().Values().ByName(protoreflect.Name(s))
			if ev == nil {
				return dst, fieldErr(nil, "is %q, not a value of enum %s", s, fd.Enum().FullName())
			}
			return protowire.AppendVarint(dst, uint64(int64(ev.Number()))), nil
		}
		if i, ok := parseInt(v); ok && i >= math.MinInt32 && i <= math.MaxInt32 {
			return protowire.AppendVarint(dst, uint64(i)), nil
		}
		return bad()
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if kindOf(v) != '0' {
			return bad()
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return bad()
		}
		if k == protoreflect.FloatKind {
			return protowire.AppendFixed32(dst, math.Float32bits(float32(f))), nil
		}
		return protowire.AppendFixed64(dst, math.Float64bits(f)), nil
	}
	// Integers, from a number or (as protojson writes 64-bit ones) text.
	num := v
	if kindOf(v) == '"' {
		num, _ = jsonString(v)
	} else if kindOf(v) != '0' {
		return dst, fieldErr(nil, "is %s, not a whole number; the schema wants %s", kindName(v), k)
	}
	i, ok := parseInt(num)
	if !ok {
		return dst, fieldErr(nil, "is %s, not a whole number; the schema wants %s", kindName(v), k)
	}
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return dst, fieldErr(nil, "is %d, out of a 32-bit field's range; make it int64", i)
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if i < 0 || i > math.MaxUint32 {
			return dst, fieldErr(nil, "is %d, out of a 32-bit field's range", i)
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if i < 0 {
			return dst, fieldErr(nil, "is %d, not a whole number from 0; the schema wants %s", i, k)
		}
	}
	switch k {
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(dst, protowire.EncodeZigZag(i)), nil
	case protoreflect.Sfixed32Kind, protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(dst, uint32(i)), nil
	case protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(dst, uint64(i)), nil
	}
	return protowire.AppendVarint(dst, uint64(i)), nil
}
