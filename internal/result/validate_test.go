package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

// TestValidateAcceptsWhatKbenchWrites: every document kbench writes holds:
// a plan run's repeats with their aggregate, a repeat merged from
// distributed workers' slices, a v1 result (testdata), a drop-in's.
func TestValidateAcceptsWhatKbenchWrites(t *testing.T) {
	t.Parallel()
	var slices []Repeat
	for _, w := range newRun(11, 20_000, 30).split(3) {
		slices = append(slices, w.repeat(t))
	}
	merged, err := MergeRepeats(slices)
	if err != nil {
		t.Fatal(err)
	}
	distributed := richDoc(t)
	distributed.Plan.Scenarios[0].Repeats = []Repeat{merged}
	if err := AggregateScenario(&distributed.Plan.Scenarios[0]); err != nil {
		t.Fatal(err)
	}
	v1, err := Read("testdata/v1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := newRun(12, 5000, 10).repeat(t)
	dropIn := &Document{Schema: Schema, Kind: KindProducerPerf, Producer: rep.Workloads[0].Producer, Consumer: rep.Workloads[1].Consumer, EndToEnd: rep.Workloads[1].EndToEnd}
	for name, doc := range map[string]*Document{"plan": richDoc(t), "distributed": distributed, "v1": v1, "drop-in": dropIn} {
		if err := doc.validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestParseRefusesImpossibleFigures: regression: report and compare took
// negative records, rates and percentiles, p99 below p95 and 1e308 rates
// and gave them verdicts ("p99 −100%, better"). A result is checked when
// it is read: the error is the user's (exit 2) and names the file, the
// field and what is wrong; a NaN (not JSON) its field and byte.
func TestParseRefusesImpossibleFigures(t *testing.T) {
	t.Parallel()
	const w = "plan.scenarios[0].repeats[0].workloads[0]"
	p := func(d *Document) *Producer { return d.Plan.Scenarios[0].Repeats[0].Workloads[0].Producer }
	c := func(d *Document) *Consumer { return d.Plan.Scenarios[0].Repeats[0].Workloads[1].Consumer }
	tests := []struct {
		name   string
		damage func(d *Document)
		text   func(s string) string // the damage made to the JSON text instead
		want   string                // with the byte's offset for %d
		also   string
	}{
		{name: "negative records", damage: func(d *Document) { p(d).Records = -5 },
			want: w + ".producer.records is -5: a count cannot be negative"},
		{name: "negative rate", damage: func(d *Document) { p(d).RecordsPerSec = -300 },
			want: w + ".producer.records_per_sec is -300: it cannot be negative"},
		{name: "1e308 rate", damage: func(d *Document) { p(d).SteadyState.RecordsPerSec = 1e308 },
			want: w + ".producer.steady_state.records_per_sec is 1e+308: more than kbench measures"},
		{name: "a rate not its records over its time", damage: func(d *Document) { p(d).RecordsPerSec *= 3 },
			want: w + ".producer.records_per_sec is ", also: ", but records ÷ duration_seconds is "},
		{name: "MiB/s not its bytes over its time", damage: func(d *Document) { c(d).MiBPerSec *= 2 },
			want: w[:len(w)-2] + "1].consumer.mib_per_sec is 0.0476837158203125, but bytes ÷ reading_seconds is 0.02384185791015625"},
		{name: "a rate over less than a nanosecond", damage: func(d *Document) {
			p(d).Records, p(d).DurationSeconds, p(d).RecordsPerSec, p(d).MiBPerSec = 1e18, 1e-300, 1e308, float64(p(d).Bytes)/1e-300/(1<<20)
		}, want: w + ".producer.duration_seconds is 1e-300: under a nanosecond"},
		{name: "p99 below p95", damage: func(d *Document) { l := &p(d).Latency; l.P50, l.P90, l.P95, l.P99 = l.Min, l.Min, l.P999, l.P999-1 },
			want: w + ".producer.latency.p99 is ", also: "µs, below p95 ("},
		{name: "negative p99", damage: func(d *Document) { p(d).SteadyState.Latency.P99 = -100 },
			want: w + ".producer.steady_state.latency.p99 is -100 µs: a latency cannot be negative"},
		{name: "p99_99 above max", damage: func(d *Document) { l := &p(d).Latency; l.P9999 = 2 * l.Max },
			want: w + ".producer.latency.p99_99 is "},
		{name: "end-to-end p50 below min", damage: func(d *Document) {
			l := d.Plan.Scenarios[0].Repeats[0].Workloads[1].EndToEnd
			l.P50 = l.Min - 1
		}, want: w[:len(w)-2] + "1].end_to_end_latency.p50 is "},
		{name: "an interval's p99 below its p50", damage: func(d *Document) { iv := &p(d).Intervals[3]; iv.P99LatencyMs = iv.P50LatencyMs / 2 },
			want: w + ".producer.intervals[3].p99_latency_ms is "},
		{name: "an interval's negative records", damage: func(d *Document) { c(d).Intervals[2].Records = -1 },
			want: w[:len(w)-2] + "1].consumer.intervals[2].records is -1: a count cannot be negative"},
		{name: "negative election", damage: func(d *Document) { *d.Plan.Scenarios[0].Repeats[0].Faults[0].ElectionMs = -5 },
			want: "plan.scenarios[0].repeats[0].faults[0].election_ms is -5: it cannot be negative"},
		{name: "negative lost records", damage: func(d *Document) { d.Plan.Scenarios[0].Repeats[0].Verification[0].Lost = -1 },
			want: "plan.scenarios[0].repeats[0].verification[0].lost is -1: a count cannot be negative"},
		{name: "failed records past int64 over the repeats", damage: func(d *Document) {
			p(d).Failed = math.MaxInt64 / 2
			d.Plan.Scenarios[0].Repeats[1].Workloads[0].Producer.Failed = math.MaxInt64 / 2
		}, want: "plan.scenarios[0].repeats[1].workloads[0].producer.failed is 4611686018427387903: with the scenario's other repeats it passes"},
		{name: "an aggregate's negative mean", damage: func(d *Document) { d.Plan.Scenarios[1].Aggregate.RecordsPerSec.Mean = -5 },
			want: "plan.scenarios[1].aggregate.records_per_sec.mean is -5: it cannot be negative"},
		{name: "an aggregate's mean above its max", damage: func(d *Document) { d.Plan.Scenarios[1].Aggregate.Records.Mean = 100 },
			want: "plan.scenarios[1].aggregate.records.mean is 100, outside min 10 and max 12"},
		{name: "an aggregate's 1e308 rate", damage: func(d *Document) { d.Plan.Scenarios[1].Aggregate.RecordsPerSec = Describe([]float64{1e308}) },
			want: "plan.scenarios[1].aggregate.records_per_sec.mean is 1e+308: more than kbench measures"},
		{name: "an interval's 1e308 rate", damage: func(d *Document) { p(d).Intervals[4].RecordsPerSec = 1e308 },
			want: w + ".producer.intervals[4].records_per_sec is 1e+308: more than kbench measures"},
		{name: "NaN", text: func(s string) string {
			return strings.Replace(s, `"records_per_sec": `, `"records_per_sec": NaN, "x": `, 1)
		}, want: w + ".producer.records_per_sec at byte %d: invalid character 'N' looking for beginning of value"},
		{name: "NaN in an interval", text: func(s string) string {
			return strings.Replace(s, `"p99_latency_ms": `, `"p99_latency_ms": NaN, "x": `, 1)
		}, want: w + ".producer.intervals[0].p99_latency_ms at byte %d: invalid character 'N'"},
		{name: "past float64", text: func(s string) string {
			return strings.Replace(s, `"duration_seconds": `, `"duration_seconds": 1e400, "x": `, 1)
		}, want: w + ".producer.duration_seconds at byte %d: number 1e400 where float64 belongs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := richDoc(t)
			if tt.damage != nil {
				tt.damage(doc)
			}
			b, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if tt.text != nil {
				b = []byte(tt.text(string(b)))
				// The byte: the value that cannot be read.
				at := bytes.Index(b, []byte("NaN"))
				if at < 0 {
					at = bytes.Index(b, []byte("1e400")) + len("1e400")
				}
				want = fmt.Sprintf(want, at)
			}
			_, err = Parse("result.json", b)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "read result result.json: ") {
				t.Fatalf("Parse: %v\nwant an error naming the file and saying %q", err, want)
			}
			if !strings.Contains(err.Error(), tt.also) {
				t.Errorf("error lacks %q: %v", tt.also, err)
			}
			if !userr.Is(err) {
				t.Errorf("not the user's error (exit 2): %v", err)
			}
		})
	}
}
