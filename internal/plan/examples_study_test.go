package plan

import (
	"math"
	"os"
	"strings"
	"testing"
)

// TestReplicationExampleRecordSize guards issue 33 item 8: the replication
// example said "records of 5 KB, as in the study", but the study's own
// figures are 5-byte records (522,990 records/s = 2.49 MB/s). The example
// sends 5 bytes, and its comment's arithmetic holds.
func TestReplicationExampleRecordSize(t *testing.T) {
	t.Parallel()
	const f = "../../examples/replication-failover.yaml"
	p, err := testLoad(t.Context(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		for _, w := range sc.Workloads {
			if w.Type == Produce && w.Message.Size != 5 {
				t.Errorf("%s: %s sends %d-byte records, want the study's 5", sc.Name, w.Name, w.Message.Size)
			}
		}
	}
	if b := 2.49 * (1 << 20) / 522_990; math.Round(b) != 5 {
		t.Fatalf("the study's figures give %.2f bytes a record", b)
	}
	text, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "522,990 records/s = 2.49 MB/s") {
		t.Error("the example no longer says why 5 bytes")
	}
}
