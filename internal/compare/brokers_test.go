package compare

import (
	"reflect"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// costed is a scenario of ok repeats on a local cluster: 1M records each,
// the brokers' CPU seconds per repeat as given, 800 MiB peak memory, 150
// MB written, and the busier broker's request handlers busy 4% per CPU
// second.
func costed(t *testing.T, cpu ...float64) result.Scenario {
	t.Helper()
	idle := func(v float64) *result.KafkaMetrics { return &result.KafkaMetrics{RequestHandlerIdle: &v} }
	s := sc("s", []float64{1000}, []float64{10}, 0)
	for i, c := range cpu {
		w := int64(150_000_000)
		s.Repeats = append(s.Repeats, result.Repeat{Index: i + 1, Status: result.StatusOK,
			Workloads: []result.Workload{{Name: "p", Producer: &result.Producer{Records: 1_000_000}}},
			Brokers: []result.BrokerCost{{ID: 1, CPUSeconds: c / 2, Processes: 1, RSSPeakBytes: 800 << 20, DiskWriteBytes: &w, Kafka: idle(1 - 0.04*c)},
				{ID: 2, CPUSeconds: c / 2, Processes: 1, RSSPeakBytes: 700 << 20, DiskWriteBytes: &w, Kafka: idle(0.9)}},
		})
	}
	return s
}

// TestCompareBrokersCost: the brokers' CPU per million records, records
// per broker core, peak memory, bytes written per record and the busiest
// handlers' share are compared and gated like any figure; a side on a
// remote cluster (no broker figures) passes a gate neither measured with
// a note.
func TestCompareBrokersCost(t *testing.T) {
	t.Parallel()
	r := load(t, planDir(t, costed(t, 10, 10, 10)), planDir(t, costed(t, 12, 12, 12)))
	if got := find(t, r, "s", "broker_cpu_per_mrec")[2:]; !reflect.DeepEqual(got, []string{"10.00 (−0.0/+0.0%)", "12.00 (−0.0/+0.0%)", "+20.0%", "worse"}) {
		t.Errorf("broker_cpu_per_mrec: %q", got)
	}
	if got := find(t, r, "s", "broker_written_per_record")[2:4]; !reflect.DeepEqual(got, []string{"300 (−0.0/+0.0%)", "300 (−0.0/+0.0%)"}) {
		t.Errorf("broker_written_per_record: %q", got)
	}
	if got := find(t, r, "s", "broker_records_per_core")[2:]; !reflect.DeepEqual(got, []string{"100000 (−0.0/+0.0%)", "83333 (−0.0/+0.0%)", "-16.7%", "worse"}) {
		t.Errorf("broker_records_per_core: %q", got)
	}
	if got := find(t, r, "s", "broker_handler_busy_pct")[2:]; !reflect.DeepEqual(got, []string{"40.0 (−0.0/+0.0%)", "48.0 (−0.0/+0.0%)", "+20.0%", "worse"}) {
		t.Errorf("broker_handler_busy_pct: %q", got)
	}
	for _, gate := range []string{"broker_cpu_per_mrec>+10%", "broker_records_per_core<-10%", "broker_handler_busy_pct>+10%", "broker_handler_busy_pct>45"} {
		rule, err := ParseRule(gate)
		if err != nil {
			t.Fatal(err)
		}
		crossings, err := Check(r, []Rule{rule})
		if err != nil || len(crossings) != 1 {
			t.Errorf("%s: crossings %v, error %v; want B to cross it", gate, crossings, err)
		}
		remote := load(t, planDir(t, sc("s", []float64{1000}, []float64{10}, 0)), planDir(t, sc("s", []float64{1000}, []float64{10}, 0)))
		if crossings, err := Check(remote, []Rule{rule}); err != nil || len(crossings) != 0 || len(remote.Notes) == 0 {
			t.Errorf("%s on a remote cluster: crossings %v, error %v, notes %q; want it passed with a note", gate, crossings, err, remote.Notes)
		}
	}
}
