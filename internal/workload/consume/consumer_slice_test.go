package consume

import (
	"testing"
)

// TestSliceConsumerDealsEveryPartitionOnce: directly assigned partitions
// are dealt among every worker's clients: each partition to exactly one.
func TestSliceConsumerDealsEveryPartitionOnce(t *testing.T) {
	parts := map[string][]int32{"a": {0, 1, 2, 3, 4}, "b": {0, 1}}
	spec := ConsumerSpec{Clients: 4, Records: 10}
	seen := map[string]int{}
	var records int64
	for w := range 3 {
		sp, ok, err := Slice(spec, w, 3)
		if err != nil || !ok {
			t.Fatalf("worker %d: %v %v", w, ok, err)
		}
		records += sp.Records
		for i := range sp.Clients {
			for topic, ps := range dealPartitions(parts, nil, sp.Slice.All, sp.Slice.First+i) {
				for p := range ps {
					seen[topic+"/"+string(rune('0'+p))]++
				}
			}
		}
	}
	if len(seen) != 7 || records != 10 {
		t.Fatalf("dealt %v and %d records, want 7 partitions and 10", seen, records)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("partition %s dealt %d times", k, n)
		}
	}
}
