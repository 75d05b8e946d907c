package result

import (
	"testing"
	"time"
)

// TestAggregateTotalsOnlyOverlap: regression: the scenario's total
// records/s added the rates of producing workloads that ran one after the
// other (a write phase, then an end-to-end phase), a rate no moment of the
// run had. Totals add rates only of workloads that ran at one moment;
// phases in sequence get no total rate, said by producers_in_sequence, and
// their records still add up.
func TestAggregateTotalsOnlyOverlap(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0).UTC()
	ivs := func(from, secs float64) []Interval {
		return []Interval{{Start: t0.Add(time.Duration(from * float64(time.Second))), Seconds: secs}}
	}
	prod := func(name string, from, secs, rps float64) Workload {
		return Workload{Name: name, Type: "produce", Producer: &Producer{Records: 1000, RecordsPerSec: rps, Intervals: ivs(from, secs)}}
	}
	cons := func(name string, from, secs, rps float64) Workload {
		return Workload{Name: name, Type: "consume", Consumer: &Consumer{Records: 1000, RecordsPerSec: rps, Intervals: ivs(from, secs)}}
	}
	tests := []struct {
		name         string
		workloads    []Workload
		rate         float64 // the total rate; 0: none
		consume      float64 // the total consumed rate; 0: none
		inSeq, cInSq bool
	}{
		{"side by side", []Workload{prod("a", 0, 10, 100), prod("b", 2, 10, 50), cons("r", 0, 12, 150)}, 150, 150, false, false},
		{"phases", []Workload{prod("writers", 0, 10, 1000), cons("readers", 10.5, 5, 2000), prod("latency", 16, 10, 10)}, 0, 2000, true, false},
		{"readers in sequence", []Workload{prod("w", 0, 10, 100), cons("r1", 10, 5, 300), cons("r2", 15, 5, 400)}, 100, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := Scenario{Name: "s", Repeats: []Repeat{{Index: 1, Status: StatusOK, Workloads: tt.workloads}}}
			if err := AggregateScenario(&sc); err != nil {
				t.Fatal(err)
			}
			a := sc.Aggregate
			if a.ProducersInSequence != tt.inSeq || a.ConsumersInSequence != tt.cInSq {
				t.Fatalf("in sequence: producers %v, consumers %v; want %v, %v", a.ProducersInSequence, a.ConsumersInSequence, tt.inSeq, tt.cInSq)
			}
			if got := a.RecordsPerSec.Mean; (tt.rate == 0) != (a.RecordsPerSec.N == 0) || got != tt.rate {
				t.Errorf("total records/s %v (n %d), want %v", got, a.RecordsPerSec.N, tt.rate)
			}
			if c := a.ConsumeRecordsPerSec; (c == nil) != (tt.consume == 0) || c != nil && c.Mean != tt.consume {
				t.Errorf("total consumed records/s %+v, want %v", c, tt.consume)
			}
			if a.Records.Mean == 0 && len(a.Producers) > 0 {
				t.Errorf("records %v: the producers' records still add up", a.Records.Mean)
			}
		})
	}
}
