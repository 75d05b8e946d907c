package engine

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestSentNanos(t *testing.T) {
	t.Parallel()
	ts := time.UnixMilli(1_700_000_000_123)
	header := make([]byte, 8)
	binary.BigEndian.PutUint64(header, uint64(ts.Add(456789).UnixNano()))
	tests := []struct {
		name string
		rec  *kgo.Record
		want int64
	}{
		{"timestamp", &kgo.Record{Timestamp: ts}, ts.UnixNano()},
		{"header", &kgo.Record{Timestamp: ts, Headers: []kgo.RecordHeader{{Key: "other", Value: []byte("x")}, {Key: SentHeader, Value: header}}}, ts.Add(456789).UnixNano()},
		{"malformed header", &kgo.Record{Timestamp: ts, Headers: []kgo.RecordHeader{{Key: SentHeader, Value: []byte("1234")}}}, ts.UnixNano()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, _ := SentNanos(tt.rec); got != tt.want {
				t.Errorf("sentNanos = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSentStamper(t *testing.T) {
	t.Parallel()
	var s SentStamper
	base := time.Unix(1_700_000_000, 0)
	recs := make([]*kgo.Record, 2*stampChunk+3)
	for i := range recs {
		recs[i] = &kgo.Record{}
		if i == 5 {
			recs[i].Headers = []kgo.RecordHeader{{Key: "own", Value: []byte("h")}}
		}
		s.Stamp(recs[i], base.Add(time.Duration(i)))
	}
	// Someone appending to a stamped record must not clobber the next one.
	recs[0].Headers = append(recs[0].Headers, kgo.RecordHeader{Key: "late"})
	for i, r := range recs {
		if got, _ := SentNanos(r); got != base.Add(time.Duration(i)).UnixNano() {
			t.Fatalf("record %d: sent %d, want %d", i, got, base.Add(time.Duration(i)).UnixNano())
		}
	}
	if len(recs[5].Headers) != 2 || recs[5].Headers[0].Key != "own" {
		t.Errorf("record with its own headers: %v", recs[5].Headers)
	}
}

// Stamping is on the producer's hot path: it must not allocate per record.
// (Not parallel: AllocsPerRun refuses to run in parallel tests.)
func TestSentStamperAllocs(t *testing.T) {
	var s SentStamper
	r := new(kgo.Record)
	allocs := testing.AllocsPerRun(10000, func() {
		r.Headers = nil
		s.Stamp(r, time.Unix(1_700_000_000, 0))
	})
	if allocs > 0.01 {
		t.Errorf("Stamp allocates %.3f times per record", allocs)
	}
}
