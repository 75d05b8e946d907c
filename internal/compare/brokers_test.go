package compare

import (
	"reflect"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// costed is a scenario of ok repeats on a local cluster: 1M records each,
// the brokers' CPU seconds per repeat as given, 800 MiB peak memory and
// 150 MB written.
func costed(t *testing.T, cpu ...float64) result.Scenario {
	t.Helper()
	s := sc("s", []float64{1000}, []float64{10}, 0)
	for i, c := range cpu {
		w := int64(150_000_000)
		s.Repeats = append(s.Repeats, result.Repeat{Index: i + 1, Status: result.StatusOK,
			Workloads: []result.Workload{{Name: "p", Producer: &result.Producer{Records: 1_000_000}}},
			Brokers:   []result.BrokerCost{{ID: 1, CPUSeconds: c / 2, RSSPeakBytes: 800 << 20, DiskWriteBytes: &w}, {ID: 2, CPUSeconds: c / 2, RSSPeakBytes: 700 << 20, DiskWriteBytes: &w}},
		})
	}
	return s
}

// TestCompareBrokersCost: the brokers' CPU per million records, peak
// memory and bytes written per record are compared and gated like any
// figure; a side on a remote cluster (no broker figures) passes a gate
// neither measured with a note.
func TestCompareBrokersCost(t *testing.T) {
	t.Parallel()
	r := load(t, planDir(t, costed(t, 10, 10, 10)), planDir(t, costed(t, 12, 12, 12)))
	if got := find(t, r, "s", "broker_cpu_per_mrec")[2:]; !reflect.DeepEqual(got, []string{"10.00 (−0.0/+0.0%)", "12.00 (−0.0/+0.0%)", "+20.0%", "worse"}) {
		t.Errorf("broker_cpu_per_mrec: %q", got)
	}
	if got := find(t, r, "s", "broker_written_per_record")[2:4]; !reflect.DeepEqual(got, []string{"300 (−0.0/+0.0%)", "300 (−0.0/+0.0%)"}) {
		t.Errorf("broker_written_per_record: %q", got)
	}
	rule, err := ParseRule("broker_cpu_per_mrec>+10%")
	if err != nil {
		t.Fatal(err)
	}
	crossings, err := Check(r, []Rule{rule})
	if err != nil || len(crossings) != 1 {
		t.Fatalf("crossings %v, error %v; want the 20%% rise to cross the gate", crossings, err)
	}
	remote := load(t, planDir(t, sc("s", []float64{1000}, []float64{10}, 0)), planDir(t, sc("s", []float64{1000}, []float64{10}, 0)))
	if crossings, err := Check(remote, []Rule{rule}); err != nil || len(crossings) != 0 || len(remote.Notes) == 0 {
		t.Errorf("remote: crossings %v, error %v, notes %q; want it passed with a note", crossings, err, remote.Notes)
	}
}
