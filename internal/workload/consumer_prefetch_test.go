package workload

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSplitFetches: a poll's records are handed on max.poll.records at a
// time, in order, none lost or repeated, a partition's error once.
func TestSplitFetches(t *testing.T) {
	recs := func(p int32, n int) []*kgo.Record {
		out := make([]*kgo.Record, n)
		for i := range out {
			out[i] = &kgo.Record{Partition: p, Offset: int64(i)}
		}
		return out
	}
	boom := errors.New("boom")
	fs := kgo.Fetches{
		{Topics: []kgo.FetchTopic{{Topic: "a", Partitions: []kgo.FetchPartition{{Partition: 0, Records: recs(0, 7)}, {Partition: 1, Err: boom, Records: recs(1, 3)}}}}},
		{Topics: []kgo.FetchTopic{{Topic: "b", Partitions: []kgo.FetchPartition{{Partition: 2, Records: recs(2, 5)}}}}},
	}
	tests := []struct {
		n     int
		sizes []int
	}{
		{0, []int{15}}, {100, []int{15}}, {15, []int{15}}, {4, []int{4, 4, 4, 3}}, {1, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	}
	for _, tt := range tests {
		pieces := splitFetches(fs, tt.n)
		if len(pieces) != len(tt.sizes) {
			t.Fatalf("n=%d: %d pieces, want %d", tt.n, len(pieces), len(tt.sizes))
		}
		var order []*kgo.Record
		errs := 0
		for i, p := range pieces {
			if got := p.NumRecords(); got != tt.sizes[i] {
				t.Errorf("n=%d: piece %d has %d records, want %d", tt.n, i, got, tt.sizes[i])
			}
			p.EachError(func(_ string, _ int32, err error) {
				if errors.Is(err, boom) {
					errs++
				}
			})
			p.EachRecord(func(r *kgo.Record) { order = append(order, r) })
		}
		var want []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) { want = append(want, r) })
		if len(order) != len(want) {
			t.Fatalf("n=%d: %d records, want %d", tt.n, len(order), len(want))
		}
		for i := range want {
			if order[i] != want[i] {
				t.Fatalf("n=%d: record %d out of order", tt.n, i)
			}
		}
		if errs != 1 {
			t.Errorf("n=%d: the partition's error came %d times, want once", tt.n, errs)
		}
	}
}
