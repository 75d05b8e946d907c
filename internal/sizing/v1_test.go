package sizing

import (
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestFromResultsV1: result files of the kbench before result v2 still
// feed `kbench size --from-results`.
func TestFromResultsV1(t *testing.T) {
	t.Parallel()
	p, c := producerDoc(2, 80000), consumerDoc(2, 120000)
	p.Schema, c.Schema = result.SchemaV1, result.SchemaV1
	dir := writeDocs(t, map[string]*result.Document{"p.json": p, "c.json": c})
	m, err := FromResults([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if m.Producer == nil || m.Consumer == nil {
		t.Fatalf("producer %v consumer %v: want both measured from the v1 files", m.Producer, m.Consumer)
	}
}
