package produce

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/payload"
)

// recordParts renders a record's templated key and headers. One per
// sending goroutine: the sources are not safe to share.
type recordParts struct {
	key     payload.Source
	headers []HeaderSource
}

func newRecordParts(spec ProducerSpec, seed uint64) recordParts {
	var p recordParts
	if spec.KeySource != nil {
		p.key = spec.KeySource.Clone(seed)
	}
	for _, h := range spec.HeaderSources {
		p.headers = append(p.headers, HeaderSource{Key: h.Key, Values: h.Values.Clone(seed)})
	}
	return p
}

func (p recordParts) clone(seed uint64) recordParts {
	var out recordParts
	if p.key != nil {
		out.key = p.key.Clone(seed)
	}
	for _, h := range p.headers {
		out.headers = append(out.headers, HeaderSource{Key: h.Key, Values: h.Values.Clone(seed)})
	}
	return out
}

// fill sets r's key and appends its headers for record n of the run. The
// header slice is the record's own (the static headers are shared).
func (p *recordParts) fill(r *kgo.Record, n int64) {
	if p.key != nil {
		r.Key = p.key.Value(n)
	}
	if len(p.headers) == 0 {
		return
	}
	hs := make([]kgo.RecordHeader, len(r.Headers), len(r.Headers)+len(p.headers)+1)
	copy(hs, r.Headers)
	for _, h := range p.headers {
		hs = append(hs, kgo.RecordHeader{Key: h.Key, Value: h.Values.Value(n)})
	}
	r.Headers = hs
}
