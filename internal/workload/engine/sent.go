package engine

import (
	"encoding/binary"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// SentHeader is the record header in which kbench producers may carry the
// send time: 8 bytes, big-endian Unix nanoseconds. Consumers measure
// end-to-end latency from it when present, and from the record's timestamp
// (milliseconds) otherwise.
const SentHeader = "kbench-sent-ns"

// SentNanos returns when r was sent, in Unix nanoseconds: its SentHeader
// (header true), else its timestamp. Records without headers cost one
// length check.
func SentNanos(r *kgo.Record) (ns int64, header bool) {
	for i := range r.Headers {
		h := &r.Headers[i]
		if len(h.Value) == 8 && h.Key == SentHeader {
			return int64(binary.BigEndian.Uint64(h.Value)), true
		}
	}
	return r.Timestamp.UnixNano(), false
}

// BacklogSkew is how long before a consumer run's start a record may have
// been sent and still count as produced during the run: the producer's
// clock may run behind the consumer's, and record timestamps have only
// milliseconds. Older records are a backlog: their "latency" would be
// their age, so they are counted apart.
const BacklogSkew = time.Second

// SentStamper adds SentHeader to records without allocating per record:
// it carves header values and one-element header slices out of chunks it
// allocates every stampChunk records. One per producing goroutine; not safe
// for concurrent use.
type SentStamper struct {
	vals []byte
	hdrs []kgo.RecordHeader
}

const stampChunk = 4096

// Stamp appends SentHeader with time t to r's headers. The header value
// stays valid while r is in flight (franz-go does not keep it afterwards),
// so records recycled through a pool may be stamped again.
func (s *SentStamper) Stamp(r *kgo.Record, t time.Time) {
	if len(s.vals) < 8 {
		s.vals = make([]byte, 8*stampChunk)
	}
	v := s.vals[:8:8]
	s.vals = s.vals[8:]
	binary.BigEndian.PutUint64(v, uint64(t.UnixNano()))
	h := kgo.RecordHeader{Key: SentHeader, Value: v}
	if len(r.Headers) > 0 {
		r.Headers = append(r.Headers, h) // the record has its own headers: grow those
		return
	}
	if len(s.hdrs) == 0 {
		s.hdrs = make([]kgo.RecordHeader, stampChunk)
	}
	// A full slice expression caps the header slice at one element, so an
	// append by someone else copies instead of overwriting the next record's.
	r.Headers = s.hdrs[:1:1]
	r.Headers[0] = h
	s.hdrs = s.hdrs[1:]
}
