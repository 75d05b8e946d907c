package report

import (
	"reflect"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// matrixDoc is a plan run of a list-of-maps matrix: every combination of
// the given parameters' values, in order, each measured over repeats.
func matrixDoc(t testing.TB, repeats int, ps ...result.Param) *result.Document {
	t.Helper()
	names := make([]string, len(ps))
	values := make([][]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
		values[i] = splitValues(p.Value)
	}
	combos := [][]result.Param{nil}
	for i := range ps {
		var next [][]result.Param
		for _, c := range combos {
			for _, v := range values[i] {
				next = append(next, append(append([]result.Param(nil), c...), result.Param{Name: names[i], Value: v}))
			}
		}
		combos = next
	}
	run := &result.PlanRun{Name: "matrix", Parameters: names, Repeat: repeats}
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for i, c := range combos {
		name := ""
		for j, p := range c {
			if j > 0 {
				name += ","
			}
			name += p.Name + "=" + p.Value
		}
		sc := result.Scenario{Index: i + 1, Name: name, Params: c}
		for r := range repeats {
			rate := float64(10000 * (i + 1) * (10 + r) / 10)
			sc.Repeats = append(sc.Repeats, result.Repeat{Index: r + 1, Status: result.StatusOK, StartedAt: t0, EndedAt: t0.Add(time.Second),
				Workloads: []result.Workload{{Name: "p", Type: "produce", Producer: &result.Producer{Records: int64(rate), RecordsPerSec: rate, MiBPerSec: rate / 1000,
					Latency: latency(t, int64(1000*(i+1)), int64(2000*(i+1)+r*100))}}}})
		}
		if err := result.AggregateScenario(&sc); err != nil {
			t.Fatal(err)
		}
		run.Scenarios = append(run.Scenarios, sc)
	}
	doc := result.New(result.KindPlan, "test", t0, nil)
	doc.Status = result.StatusOK
	doc.Plan = run
	return doc
}

func splitValues(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '|' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// TestMatrixAxis: regression: a list-of-maps matrix charted everything
// against its first parameter (acks, categorical) with the record size as
// 15 legend entries. The x axis is the numeric parameter with the most
// values, with its unit, on a log scale when it spans decades; a matrix
// with no numeric parameter gets grouped bars over the categorical one
// with the most values; the series are the other parameters' values.
func TestMatrixAxis(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		params     []result.Param
		parameter  string
		unit       string
		numeric    bool
		log        bool
		x          []float64
		labels     []string
		series     []string
		seriesName string
	}{
		{"sizes and acks", []result.Param{{Name: "acks", Value: "1|all"}, {Name: "record_size", Value: "1000|10|100|1"}},
			"record_size", "B", true, true, []float64{1, 10, 100, 1000}, []string{"1", "10", "100", "1000"}, []string{"acks=1", "acks=all"}, "acks"},
		{"sizes with units", []result.Param{{Name: "message", Value: "100B|4KB|1KiB"}},
			"message", "B", true, false, []float64{100, 1024, 4000}, []string{"100B", "1KiB", "4KB"}, []string{""}, ""},
		{"partitions, a narrow range", []result.Param{{Name: "partitions", Value: "3|6|12"}, {Name: "compression", Value: "none|lz4"}},
			"partitions", "", true, false, []float64{3, 6, 12}, []string{"3", "6", "12"}, []string{"compression=none", "compression=lz4"}, "compression"},
		{"rates", []result.Param{{Name: "rate", Value: "5k/s|25k/s|600/m"}},
			"rate", "records/s", true, true, []float64{10, 5000, 25000}, []string{"600/m", "5k/s", "25k/s"}, []string{""}, ""},
		// Regression: a duration in days (units' grammar) was categorical.
		{"durations", []result.Param{{Name: "hold", Value: "1d|12h|90m"}},
			"hold", "s", true, false, []float64{5400, 43200, 86400}, []string{"90m", "12h", "1d"}, []string{""}, ""},
		{"categorical only", []result.Param{{Name: "compression", Value: "none|lz4"}, {Name: "acks", Value: "0|1|all"}},
			"acks", "", false, false, nil, []string{"0", "1", "all"}, []string{"compression=none", "compression=lz4"}, "compression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := matrix(matrixDoc(t, 2, tt.params...).Plan)
			if m.Parameter != tt.parameter || m.Unit != tt.unit || m.Numeric != tt.numeric || m.Log != tt.log || m.Series != tt.seriesName {
				t.Errorf("x %s (%s) numeric %v log %v, series %q; want %s (%s) %v %v, %q", m.Parameter, m.Unit, m.Numeric, m.Log, m.Series, tt.parameter, tt.unit, tt.numeric, tt.log, tt.seriesName)
			}
			if !reflect.DeepEqual(m.X, tt.x) || !reflect.DeepEqual(m.Labels, tt.labels) {
				t.Errorf("x %v labels %q, want %v %q", m.X, m.Labels, tt.x, tt.labels)
			}
			for _, mt := range m.Metrics {
				var got []string
				for _, s := range mt.Series {
					got = append(got, s.Name)
					for i := range s.Mean {
						if s.Mean[i] == nil || *s.Min[i] > *s.Mean[i] || *s.Mean[i] > *s.Max[i] {
							t.Errorf("%s, %s at %s: min %v mean %v max %v", mt.Name, s.Name, m.Labels[i], s.Min[i], s.Mean[i], s.Max[i])
						}
					}
				}
				if !reflect.DeepEqual(got, tt.series) {
					t.Errorf("%s: series %q, want %q", mt.Name, got, tt.series)
				}
			}
		})
	}
	// The point at record_size=10 for acks=all is scenario acks=all,record_size=10's.
	doc := matrixDoc(t, 2, result.Param{Name: "acks", Value: "1|all"}, result.Param{Name: "record_size", Value: "1000|10|100|1"})
	m := matrix(doc.Plan)
	var want float64
	for _, sc := range doc.Plan.Scenarios {
		if sc.Name == "acks=all,record_size=10" {
			want = round3(sc.Aggregate.RecordsPerSec.Mean)
		}
	}
	if got := *m.Metrics[0].Series[1].Mean[1]; got != want {
		t.Errorf("acks=all at record_size=10: %v, want %v", got, want)
	}
}
