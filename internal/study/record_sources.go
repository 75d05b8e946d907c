package study

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload/produce"
)

// recordSources is what a producing workload's records are made of. One
// function builds them for a run and for `kbench preview`, so that the
// preview shows exactly what a run sends (same sources, same seeds).
type recordSources struct {
	values     payload.Source
	keys       *payload.Keys  // message.key_range
	keySrc     payload.Source // message.key.template
	headers    []kgo.RecordHeader
	headerSrcs []produce.HeaderSource
}

// recordSourcesOf builds the workload's record sources from its message
// seed: values from seed+1, keys from seed+1 (a range) or seed+2 (a
// template), header templates from seed+3.
func recordSourcesOf(p *plan.Plan, w *plan.Workload, seed uint64, ids *schemaIDs) (recordSources, error) {
	var src recordSources
	var err error
	if src.values, err = valuesOf(p, w, seed); err != nil {
		return src, err
	}
	if w.Message.Schema != nil {
		src.values = ids.encoded(src.values, w.Topic, false, w.Message.Schema)
	}
	if w.Message.KeyRange > 0 {
		if src.keys, err = payload.NewKeysFormat(int(w.Message.KeyRange), w.Message.KeyDist, w.Message.KeyFormat, seed+1); err != nil {
			return src, fmt.Errorf("message.key_range: %w", err)
		}
	}
	if t := w.Message.KeyTemplate; t != nil {
		if w.Message.KeySchema != nil {
			// Encoded from the template's JSON, not its raw text.
			if src.keySrc, err = payload.CompileTemplate(*t, seed+2); err != nil {
				return src, fmt.Errorf("message.key.template: %w", err)
			}
			src.keySrc = ids.encoded(src.keySrc, w.Topic, true, w.Message.KeySchema)
		} else if src.keySrc, err = payload.CompileRaw(*t, seed+2); err != nil {
			return src, fmt.Errorf("message.key.template: %w", err)
		}
	}
	for _, name := range sortedKeys(w.Message.HeaderTemplates) {
		h, err := payload.CompileRaw(w.Message.HeaderTemplates[name], seed+3)
		if err != nil {
			return src, fmt.Errorf("message.headers.%s: %w", name, err)
		}
		src.headerSrcs = append(src.headerSrcs, produce.HeaderSource{Key: name, Values: h})
	}
	src.headers = headersOf(w.Message.Headers)
	return src, nil
}

// maxSize is the largest record the sources make: value, key and header
// templates (what the producer's batch size check needs).
func (s recordSources) maxSize() int {
	n := s.values.MaxSize()
	switch {
	case s.keySrc != nil:
		n += s.keySrc.MaxSize()
	case s.keys != nil:
		n += s.keys.MaxSize()
	}
	for _, h := range s.headerSrcs {
		n += len(h.Key) + h.Values.MaxSize()
	}
	return n
}

// clone is the sources on streams of their own (payload.Source.Clone).
func (s recordSources) clone(x uint64) recordSources {
	s.values = s.values.Clone(x)
	if s.keys != nil {
		s.keys = s.keys.Clone(x)
	}
	if s.keySrc != nil {
		s.keySrc = s.keySrc.Clone(x)
	}
	s.headerSrcs = append([]produce.HeaderSource(nil), s.headerSrcs...)
	for k := range s.headerSrcs {
		s.headerSrcs[k].Values = s.headerSrcs[k].Values.Clone(x)
	}
	return s
}
