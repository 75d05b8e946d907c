package report

import (
	"fmt"

	"github.com/kbench/kbench/internal/result"
)

// schemaTable compares the producers' formats: per scenario and producing
// workload, the mean over repeats that ended ok of records/s, this
// process's CPU per record, bytes per record and p99 publish latency,
// with the schema registry's cost as a note. nil when no workload's
// records had a schema format.
func schemaTable(run *result.PlanRun) *table {
	if run == nil || run.SchemaRegistry == nil {
		return nil
	}
	t := &table{Title: "Schema formats",
		Columns: []string{"scenario", "workload", "format", "records/s", "CPU µs/record", "bytes/record", "p99 ms", "decode failures"}}
	for _, sc := range run.Scenarios {
		type acc struct {
			format                      string
			n                           int
			rate, cpu, bytes, p99       float64
			decodeFailures, readRecords int64
		}
		byName := map[string]*acc{}
		var order []string
		var failures int64
		for _, rep := range sc.Repeats {
			if rep.Status != "ok" {
				continue
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
				a.rate += p.RecordsPerSec
				a.cpu += w.Producer.CPUMicrosPerRecord
				a.bytes += w.Producer.BytesPerRecord
				a.p99 += float64(p.Latency.P99) / 1000
			}
		}
		for _, name := range order {
			a := byName[name]
			k := float64(a.n)
			t.Rows = append(t.Rows, []string{sc.Name, name, a.format, num(a.rate/k, 0), num(a.cpu/k, 1), num(a.bytes/k, 1), num(a.p99/k, 1), fmt.Sprint(failures)})
			t.Bad = append(t.Bad, failures > 0)
		}
	}
	r := run.SchemaRegistry
	t.Notes = append(t.Notes, fmt.Sprintf("Schema registry %s: %d subject(s) resolved before sending in %d request(s), %.1f ms (cold); %d request(s) while records flowed (warm: only what a client had not cached), mean %.1f ms, max %.1f ms; %d failed.",
		r.URL, len(r.Subjects), r.ColdRequests, r.ColdMillis, r.WarmRequests, r.WarmMeanMillis, r.WarmMaxMillis, r.Failures),
		"CPU µs/record is this process's CPU time per record acknowledged (serialisation, batching, and readers' decoding when they ran beside the producer); bytes/record are values as sent, registry framing included; decode failures are the scenario's consumers' records whose schema-framed values did not decode.")
	return t
}
