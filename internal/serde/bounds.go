package serde

import (
	"fmt"

	"github.com/hamba/avro/v2"
)

// MaxSchema is the longest schema text kbench parses: 1 MiB, about what a
// Confluent registry stores (its _schemas topic takes records of 1 MB by
// default). The parsers take about 90 bytes of memory per byte of text: a
// 14 MB schema took 1.3 GB before a field was checked.
const MaxSchema = 1 << 20

// maxAvroCopy bounds the bytes hamba/avro copies to build a schema's
// canonical form (about a third of a second on the 2-core machine).
// It builds it once per schema, to key its encoders and decoders, joining
// each record's fields, enum's symbols and union's branches with +=: the
// cost grows with their number times their size, so a record of 200,000
// fields took minutes and gigabytes before the first value was encoded.
// 2 GiB is a flat record of about 6,500 fields of 50 bytes.
const maxAvroCopy = 2 << 30

// maxJSONSchemaObjects bounds the objects (subschemas and the maps that
// hold them) of a JSON Schema: santhosh-tekuri/jsonschema's compiler
// looks up each subschema in a list of those it queued, a time that grows
// with the square of their number (20,000 took 1.6 s, 200,000 more than a
// minute); 10,000 take about half a second.
const maxJSONSchemaObjects = 10_000

// checkSize refuses a schema text longer than MaxSchema.
func checkSize(text string) error {
	if len(text) > MaxSchema {
		return fmt.Errorf("the schema is %d bytes, more than the %d (1 MiB) kbench parses, about what a Confluent registry stores: is it the right schema?", len(text), MaxSchema)
	}
	return nil
}

// avroCost walks a parsed schema as hamba/avro's String does and adds up
// the bytes it copies; worst is the list (record, enum or union) that
// costs the most, for the error.
type avroCost struct {
	copied    int64
	worst     string // "record t.Big", "enum t.E", "a union"
	worstN    int
	worstWhat string // "fields", "symbols", "branches"
	worstCopy int64
	worstSize int64
}

// checkAvroCost refuses a schema whose canonical form hamba/avro would take
// more than maxAvroCopy bytes of copying to build.
func checkAvroCost(s avro.Schema) error {
	var c avroCost
	c.size(s)
	if c.copied <= maxAvroCopy {
		return nil
	}
	return fmt.Errorf("%s has %d %s (%s in Avro's canonical form), too many for kbench: its Avro library (hamba/avro) takes time that grows with a %s's %s times their size, and kbench takes about 6,000 short fields in a record (symbols in an enum, branches in a union); use fewer %s",
		c.worst, c.worstN, c.worstWhat, mb(c.worstSize), listNoun(c.worst), c.worstWhat, c.worstWhat)
}

func listNoun(worst string) string {
	for _, n := range []string{"record", "enum"} {
		if len(worst) > len(n) && worst[:len(n)] == n {
			return n
		}
	}
	return "union"
}

func mb(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1e3)
}

// list adds the cost of joining n items of the given sizes with += and
// returns the joined length.
func (c *avroCost) list(name, what string, sizes []int64) int64 {
	var joined, copied int64
	for _, s := range sizes {
		joined += s + 1
		copied += joined
	}
	c.copied += copied
	if copied > c.worstCopy {
		c.worst, c.worstWhat, c.worstN, c.worstCopy, c.worstSize = name, what, len(sizes), copied, joined
	}
	return joined
}

// size is the length of s's canonical form; it adds what building it
// copies.
func (c *avroCost) size(s avro.Schema) int64 {
	var n int64
	switch s := s.(type) {
	case *avro.RecordSchema:
		sizes := make([]int64, len(s.Fields()))
		for i, f := range s.Fields() {
			sizes[i] = int64(len(`{"name":"","type":}`)+len(f.Name())) + c.size(f.Type())
			c.copied += sizes[i]
		}
		n = int64(len(`{"name":"","type":"record","fields":[]}`)+len(s.FullName())) + c.list("record "+s.FullName(), "fields", sizes)
	case *avro.EnumSchema:
		sizes := make([]int64, len(s.Symbols()))
		for i, sym := range s.Symbols() {
			sizes[i] = int64(len(sym) + 2)
		}
		n = int64(len(`{"name":"","type":"enum","symbols":[]}`)+len(s.FullName())) + c.list("enum "+s.FullName(), "symbols", sizes)
	case *avro.UnionSchema:
		sizes := make([]int64, len(s.Types()))
		for i, t := range s.Types() {
			sizes[i] = c.size(t)
		}
		n = 2 + c.list("a union", "branches", sizes)
	case *avro.ArraySchema:
		n = int64(len(`{"type":"array","items":}`)) + c.size(s.Items())
	case *avro.MapSchema:
		n = int64(len(`{"type":"map","values":}`)) + c.size(s.Values())
	case *avro.RefSchema:
		n = int64(len(s.Schema().FullName()) + 2)
	case *avro.FixedSchema:
		n = int64(len(`{"name":"","type":"fixed","size":00000000000,"logicalType":"decimal","precision":00000000000,"scale":00000000000}`) + len(s.FullName()))
	default: // primitives and null: a few bytes
		n = int64(len(s.String()))
	}
	c.copied += n
	return n
}
