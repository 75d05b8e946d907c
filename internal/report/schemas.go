package report

import (
	"fmt"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/units"
)

// schemaTable compares the producers' formats: per scenario and producing
// workload, the mean over repeats that ended ok of records/s, this
// process's CPU per record, bytes per record and p99 publish latency,
// with the schema registry's cost as a note. nil when no workload's
// records had a schema format. The CPU is the process's over every
// producing workload of the repeat (no per-workload CPU time exists):
// with several, each row has the same figure, marked § as their share,
// where three formats in one scenario had read as costing the same.
func schemaTable(run *result.PlanRun) *table {
	if run == nil || run.SchemaRegistry == nil {
		return nil
	}
	t := &table{Title: "Schema formats",
		Columns: []string{"scenario", "workload", "format", "records/s", "CPU µs/record", "bytes/record", "p99 ms", "decode failures"}}
	shared := false
	for _, sc := range run.Scenarios {
		type acc struct {
			format                string
			n, sharedBy           int
			rate, cpu, bytes, p99 float64
		}
		byName := map[string]*acc{}
		var order []string
		var failures int64
		for _, rep := range sc.Repeats {
			if rep.Status != "ok" {
				continue
			}
			producing := 0 // the workloads the repeat's CPU per record is over
			for _, w := range rep.Workloads {
				if w.Producer != nil && w.Producer.CPUMicrosPerRecord > 0 {
					producing++
				}
			}
			for _, w := range rep.Workloads {
				if w.Consumer != nil {
					failures += w.Consumer.DecodeFailures
				}
				p := w.Producer
				if p == nil || p.Format == "" {
					continue
				}
				a := byName[w.Name]
				if a == nil {
					a = &acc{format: p.Format}
					byName[w.Name] = a
					order = append(order, w.Name)
				}
				if p.SteadyState != nil {
					p = p.SteadyState
				}
				a.n++
				a.sharedBy = max(a.sharedBy, producing)
				a.rate += p.RecordsPerSec
				a.cpu += w.Producer.CPUMicrosPerRecord
				a.bytes += w.Producer.BytesPerRecord
				a.p99 += float64(p.Latency.P99) / 1000
			}
		}
		for _, name := range order {
			a := byName[name]
			k := float64(a.n)
			cpu := units.Figure(a.cpu/k, 1)
			if a.sharedBy > 1 {
				cpu += " §"
				shared = true
			}
			t.Rows = append(t.Rows, []string{sc.Name, name, a.format, units.Figure(a.rate/k, 0), cpu, units.Figure(a.bytes/k, 1), units.Figure(a.p99/k, 1), fmt.Sprint(failures)})
			t.Bad = append(t.Bad, failures > 0)
		}
	}
	r := run.SchemaRegistry
	t.Notes = append(t.Notes, fmt.Sprintf("Schema registry %s: %d subject(s) resolved before sending in %d request(s), %.1f ms (cold); %d request(s) while records flowed (warm: only what a client had not cached), mean %.1f ms, max %.1f ms; %d failed.",
		r.URL, len(r.Subjects), r.ColdRequests, r.ColdMillis, r.WarmRequests, r.WarmMeanMillis, r.WarmMaxMillis, r.Failures),
		"CPU µs/record is this process's CPU time per record acknowledged (serialisation, batching, and readers' decoding when they ran beside the producer); bytes/record are values as sent, registry framing included; decode failures are the scenario's consumers' records whose schema-framed values did not decode.")
	if shared {
		t.Notes = append(t.Notes, "§ the process's CPU time over every producing workload of the repeat, per record of them all: one process ran them, and its CPU time cannot be split between them, so each such row shows the same share and tells its format from none of the others. Run each format in a scenario of its own to compare their CPU.")
	}
	return t
}
