package serde

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// avroRecord is a flat record of n nullable string fields.
func avroRecord(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Big","namespace":"t","fields":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"f%06d","type":["null","string"],"default":null}`, i)
	}
	b.WriteString("]}")
	return b.String()
}

// TestSchemaCostBounded: regression: a 10.7 MB Avro schema of 200,000
// fields (under the plan's 16 MiB bound) made kbench run --dry-run take
// minutes and 3.9 GB, printing nothing: hamba/avro builds a schema's
// canonical form by joining its fields with +=, a time that grows with
// their number times their size, and santhosh-tekuri/jsonschema's compiler
// takes a time growing with the square of a schema's subschemas. Each is
// now refused, quickly, with what is too large.
func TestSchemaCostBounded(t *testing.T) {
	t.Parallel()
	var syms strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&syms, `,"S%d"`, i)
	}
	enum := `{"type":"enum","name":"E","symbols":["A"` + syms.String() + `]}`
	var props strings.Builder
	for i := range maxJSONSchemaObjects {
		fmt.Fprintf(&props, `,"f%d":{"type":"string"}`, i)
	}
	for _, tc := range []struct {
		name string
		f    Format
		text string
		want string
	}{
		{"text over 1 MiB", Avro, avroRecord(20_000), "more than the 1048576 (1 MiB) kbench parses"},
		{"record of 15,000 fields", Avro, avroRecord(15_000), "record t.Big has 15000 fields (675.0 kB in Avro's canonical form), too many for kbench"},
		{"enum of 100,000 symbols", Avro, enum, "enum E has 100001 symbols"},
		{"10,000 JSON Schema properties", JSONSchema, `{"type":"object","properties":{"a":{}` + props.String() + `}}`, "more than 10000 objects"},
		{"protobuf over 1 MiB", Protobuf, "syntax = \"proto3\";\n" + strings.Repeat("// padding\n", MaxSchema/11+1), "more than the 1048576 (1 MiB)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := Parse(tc.f, tc.text)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v\nwant an error with %q", err, tc.want)
			}
			// Refused before the quadratic part: a few tens of ms, where
			// the record of 15,000 fields took 1.3 s and 600 MB to pass.
			if took > 5*time.Second {
				t.Errorf("Parse took %v to refuse it", took)
			}
		})
	}
}

// TestSchemaCostBoundKeepsLargeSchemas: the bounds leave room for large
// real schemas: a record of 5,000 fields, 5,000 JSON Schema properties
// and a 1 MiB .proto of 40,000 fields parse.
func TestSchemaCostBoundKeepsLargeSchemas(t *testing.T) {
	t.Parallel()
	var props, proto strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&props, `,"f%d":{"type":"string"}`, i)
	}
	proto.WriteString("syntax = \"proto3\";\nmessage Big {\n")
	for i := 0; proto.Len() < MaxSchema-40; i++ {
		fmt.Fprintf(&proto, "  string f%06d = %d;\n", i, i+1+1000*(i/18999)) // around 19000-19999, reserved
	}
	proto.WriteString("}\n")
	for _, tc := range []struct {
		f    Format
		text string
	}{
		{Avro, avroRecord(5000)},
		{JSONSchema, `{"type":"object","properties":{"a":{}` + props.String() + `}}`},
		{Protobuf, proto.String()},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			t.Parallel()
			if _, err := Parse(tc.f, tc.text); err != nil {
				t.Fatal(err)
			}
		})
	}
}
