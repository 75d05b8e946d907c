package report

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// FuzzReport: whatever result file result.Parse accepts (histograms
// checked), kbench report writes its summaries and report.html without
// panicking.
func FuzzReport(f *testing.F) {
	for _, doc := range []*result.Document{testDoc(f), probeDoc(f), faultDoc(f), matrixDoc(f, 2, result.Param{Name: "acks", Value: "1|all"}, result.Param{Name: "record_size", Value: "1|100"})} {
		b, err := json.Marshal(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := result.Parse("fuzz.json", data)
		if err != nil || doc.Plan == nil {
			return
		}
		if err := doc.Plan.Reaggregate(); err != nil {
			return
		}
		WriteSummaryMarkdown(io.Discard, doc)
		WriteSummaryCSV(io.Discard, doc)
		WriteHTML(io.Discard, doc, HTMLInput{})
	})
}
