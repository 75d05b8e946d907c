package serde

import (
	"sync/atomic"

	"github.com/kbench/kbench/internal/payload"
)

// Source encodes the values of a template source with a schema, framed
// with the schema id: what a Confluent serializer would send.
type Source struct {
	inner payload.Source
	// cur is the schema and framing values are encoded with, shared by
	// the clones: a version registered mid-run (SetVersion) changes every
	// client's next value.
	cur   *atomic.Pointer[version]
	fails *atomic.Int64 // shared by clones
	first *atomic.Pointer[error]
}

type version struct {
	schema *Schema
	id     int
	frame  []byte
}

// NewSource encodes inner's values with s, framed with schema id id.
func NewSource(inner payload.Source, s *Schema, id int) *Source {
	src := &Source{inner: inner, cur: new(atomic.Pointer[version]), fails: new(atomic.Int64), first: new(atomic.Pointer[error])}
	src.SetVersion(s, id)
	return src
}

// SetVersion encodes later values (of this source and its clones) with
// schema s framed with id: a compatible version registered mid-run.
func (s *Source) SetVersion(sch *Schema, id int) {
	s.cur.Store(&version{schema: sch, id: id, frame: sch.Frame(nil, id)})
}

// Version is the schema and id values are encoded with now.
func (s *Source) Version() (*Schema, int) {
	v := s.cur.Load()
	return v.schema, v.id
}

// Value is record i's value, encoded; a value that does not encode (a
// template Check passed should not make one) is sent empty and counted.
func (s *Source) Value(i int64) []byte {
	js := s.inner.Value(i)
	v := s.cur.Load()
	b := make([]byte, 0, len(v.frame)+len(js)+8)
	b = append(b, v.frame...)
	b, err := v.schema.EncodeRaw(b, js)
	if err != nil {
		s.fails.Add(1)
		s.first.CompareAndSwap(nil, &err)
		return nil
	}
	return b
}

// Pair is record i's value as the template renders it (JSON) and as it is
// sent (encoded, framed): what kbench preview shows.
func (s *Source) Pair(i int64) (js, encoded []byte, err error) {
	js = s.inner.Value(i)
	v := s.cur.Load()
	encoded, err = v.schema.EncodeJSON(append([]byte(nil), v.frame...), js)
	return js, encoded, err
}

// Format is the values' schema format.
func (s *Source) Format() Format { return s.cur.Load().schema.Format }

// MaxSize bounds an encoded value: the framing and at most the JSON's own
// size again (a binary value is smaller than its JSON but for numbers
// written short, which Avro and Protobuf write in at most 10 bytes).
func (s *Source) MaxSize() int { return 16 + 2*s.inner.MaxSize() }

// Clone is the source on a stream of its own, sharing the failure count.
func (s *Source) Clone(seed uint64) payload.Source {
	return &Source{inner: s.inner.Clone(seed), cur: s.cur, fails: s.fails, first: s.first}
}

// Failures is how many values did not encode since the last call (by this
// source and its clones), and the first one's error.
func (s *Source) Failures() (int64, error) {
	n := s.fails.Swap(0)
	if p := s.first.Swap(nil); p != nil {
		return n, *p
	}
	return n, nil
}

// Check renders n values of a template source and encodes each: the first
// that does not fit the schema is the error (a *FieldError names the field).
func Check(src payload.Source, s *Schema, n int) error {
	for i := range int64(n) {
		if _, err := s.EncodeJSON(nil, src.Value(i)); err != nil {
			return err
		}
	}
	return nil
}
