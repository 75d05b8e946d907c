package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// schemaDoc is a run of three formats in one scenario (one process's CPU
// over all three) and one format alone.
func schemaDoc(t *testing.T) *result.Document {
	t.Helper()
	prod := func(name, format string, cpu float64) result.Workload {
		return result.Workload{Name: name, Type: "produce", Producer: &result.Producer{Records: 1000, RecordsPerSec: 1000, Format: format,
			BytesPerRecord: 40, CPUMicrosPerRecord: cpu, Latency: latency(t, 3000, 4000)}}
	}
	together := result.Scenario{Index: 1, Name: "together", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK,
		Workloads: []result.Workload{prod("avro", "avro", 12.5), prod("json", "json_schema", 12.5), prod("proto", "protobuf", 12.5)}}}}
	alone := result.Scenario{Index: 2, Name: "alone", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK,
		Workloads: []result.Workload{prod("avro", "avro", 9.3)}}}}
	for _, sc := range []*result.Scenario{&together, &alone} {
		if err := result.AggregateScenario(sc); err != nil {
			t.Fatal(err)
		}
	}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Plan = &result.PlanRun{Name: "formats", Repeat: 1, Scenarios: []result.Scenario{together, alone},
		SchemaRegistry: &result.SchemaRegistry{URL: "http://localhost:8081"}}
	return doc
}

// TestSchemaTableMarksTheProcessShare guards the schema formats table's
// CPU µs/record: the process's CPU over every producing workload of a
// repeat, so three formats in one scenario showed one number each as if
// it were their own. It is marked as their share, and a format alone
// keeps its own. report.html had no schema formats table: it has
// summary.md's.
func TestSchemaTableMarksTheProcessShare(t *testing.T) {
	t.Parallel()
	doc := schemaDoc(t)
	var md, html bytes.Buffer
	if err := WriteSummaryMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, doc, HTMLInput{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| together | avro | avro | 1000 | 12.5 § |", "| together | proto | protobuf | 1000 | 12.5 § |",
		"| alone | avro | avro | 1000 | 9.3 |", "§ the process's CPU time over every producing workload of the repeat",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"Schema formats", "12.5 §", "§ the process&#39;s CPU time"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
