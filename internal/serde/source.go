package serde

import (
	"sync/atomic"
	"time"

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

// SourceOf is the Source behind v, a Source or one Rendered.
func SourceOf(v payload.Source) (*Source, bool) {
	switch s := v.(type) {
	case *Source:
		return s, true
	case *renderSource:
		return s.Source, true
	}
	return nil, false
}

// Rendered is src as a payload.Renderer when its template renders into a
// buffer (a producer then encodes into its own slabs), else src itself.
func Rendered(src *Source) payload.Source {
	if r, ok := src.inner.(payload.Renderer); ok {
		return &renderSource{Source: src, r: r}
	}
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
		s.failed(err)
		return nil
	}
	return b
}

// renderSource is a Source over a template that renders into a buffer
// (payload.Renderer): the producer's slabs receive the encoded value with
// no allocation per record, the JSON going through the source's own
// scratch buffer (each client has its clone).
type renderSource struct {
	*Source
	r       payload.Renderer
	scratch []byte
}

// AppendValue is payload.Renderer's: record i's value, encoded and framed,
// appended to dst; a value that does not encode is empty and counted.
func (s *renderSource) AppendValue(dst []byte, i int64, now time.Time) []byte {
	s.scratch = s.r.AppendValue(s.scratch[:0], i, now)
	v := s.cur.Load()
	start := len(dst)
	out, err := v.schema.EncodeRaw(append(dst, v.frame...), s.scratch)
	if err != nil {
		s.failed(err)
		return dst[:start]
	}
	return out
}

// failed counts a value that did not encode and keeps the first error.
// Apart, so that the error escapes to the heap only when there is one.
func (s *Source) failed(err error) {
	s.fails.Add(1)
	s.first.CompareAndSwap(nil, &err)
}

// Clone is the source on a stream of its own, rendering into a scratch
// buffer of its own.
func (s *renderSource) Clone(seed uint64) payload.Source {
	c := s.Source.Clone(seed).(*Source)
	if r, ok := c.inner.(payload.Renderer); ok {
		return &renderSource{Source: c, r: r}
	}
	return c
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
