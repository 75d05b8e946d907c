package result

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestRatios: readings off the steps' grid are spread over the steps
// they span; a step nothing spans is null, a barely spanned last step
// too, and a clamp keeps an idle meter's overshoot at 0% busy.
func TestRatios(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	type reading struct{ from, to, num, den float64 }
	tests := []struct {
		name     string
		readings []reading
		f        func(float64) float64
		want     []any // float64, or nil for null
	}{
		{"on the grid", []reading{{0, 1, 2, 1}, {1, 2, 1, 1}}, Cores, []any{2.0, 1.0}},
		{"a skipped tick spans two steps", []reading{{0, 1, 1, 1}, {1, 3, 4, 2}}, Cores, []any{1.0, 2.0, 2.0}},
		{"drift: half a reading in each step", []reading{{0.5, 1.5, 1, 1}}, Cores, []any{1.0, 1.0}},
		{"a last step read for 10 ms", []reading{{0, 1, 1, 1}, {1, 1.01, 0.5, 0.01}}, Cores, []any{1.0, nil}},
		{"a gap (a broker down)", []reading{{0, 1, 1, 1}, {2, 3, 1, 1}}, Cores, []any{1.0, nil, 1.0}},
		{"idle over 1 is 0% busy", []reading{{0, 1, 1.0003e9, 1e9}, {1, 2, 0.25e9, 1e9}}, BusyPct, []any{0.0, 75.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRatios(t0, time.Second)
			for _, x := range tt.readings {
				r.Add(x.from, x.to, x.num, x.den)
			}
			s := r.Steps(tt.f, 2)
			if s == nil || len(s.Values) != len(tt.want) {
				t.Fatalf("steps %+v, want %d values", s, len(tt.want))
			}
			for i, w := range tt.want {
				got := s.Values[i]
				switch {
				case w == nil && got != nil:
					t.Errorf("step %d = %v, want null", i, *got)
				case w != nil && (got == nil || *got != w.(float64)):
					t.Errorf("step %d = %v, want %v", i, got, w)
				}
			}
			if at := s.At(0, t0.Add(-2*time.Second)); at != 3 {
				t.Errorf("step 0 ends %v s after t0, want 3", at)
			}
		})
	}
	if s := NewRatios(t0, time.Second).Steps(Cores, 2); s != nil {
		t.Errorf("no reading gave %+v, want nil", s)
	}
}

// TestStepsJSON: a step is one number (or null) in result.json.
func TestStepsJSON(t *testing.T) {
	r := NewRatios(time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC), time.Second)
	r.Add(0, 1, 1.234, 1)
	r.Add(2, 3, 0.5, 1)
	b, err := json.Marshal(r.Steps(Cores, 2))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"start":"2026-12-06T03:00:00Z","step_seconds":1,"values":[1.23,null,0.5]}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
}

// TestBrokerSeriesOf: records per broker core come with /proc's CPU; the
// busiest broker's handlers with the brokers' metrics alone (a remote
// cluster); a repeat that did not end ok gives neither.
func TestBrokerSeriesOf(t *testing.T) {
	idle := func(v float64) *KafkaMetrics { return &KafkaMetrics{RequestHandlerIdle: &v} }
	prod := []Workload{{Name: "p", Producer: &Producer{Records: 2_000_000}}}
	reps := []Repeat{
		{Status: StatusOK, Workloads: prod, Brokers: []BrokerCost{{ID: 1, CPUSeconds: 4, Processes: 1, Kafka: idle(0.6)}, {ID: 2, CPUSeconds: 6, Processes: 1, Kafka: idle(0.3)}}},
		{Status: StatusOK, Workloads: prod, Brokers: []BrokerCost{{Endpoint: "https://b1:9404/metrics", Kafka: idle(0.5)}}},
		{Status: StatusFailed, Workloads: prod, Brokers: []BrokerCost{{ID: 1, CPUSeconds: 1, Processes: 1, Kafka: idle(0)}}},
	}
	s := BrokerSeriesOf(reps)
	if len(s.RecordsPerCore) != 1 || s.RecordsPerCore[0] != 200_000 {
		t.Errorf("records per core %v, want [200000] (2M records over 10 CPU s)", s.RecordsPerCore)
	}
	if len(s.HandlerBusyPct) != 2 || s.HandlerBusyPct[0] != 70 || s.HandlerBusyPct[1] != 50 {
		t.Errorf("handlers busy %v, want [70 50] (broker 2's, then the remote endpoint's)", s.HandlerBusyPct)
	}
	if len(s.CPUPerMRec) != 1 || s.CPUPerMRec[0] != 5 {
		t.Errorf("CPU per M records %v, want [5]", s.CPUPerMRec)
	}
}

// TestStepsRoundTrip: result.json keeps a broker's steps, nulls included,
// through Write and Read (its strict decoder and validation).
func TestStepsRoundTrip(t *testing.T) {
	t.Parallel()
	doc := richDoc(t)
	rep := &doc.Plan.Scenarios[0].Repeats[0]
	r := NewRatios(rep.StartedAt, time.Second)
	r.Add(0, 1, 1.5, 1)
	r.Add(2, 3, 0.25, 1)
	rep.Brokers = []BrokerCost{{ID: 1, CPUSeconds: 1.75, Processes: 1, CPUCores: r.Steps(Cores, 2),
		Kafka: &KafkaMetrics{HandlerBusy: r.Steps(BusyPct, 1)}}}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := Write(path, doc); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	b := got.Plan.Scenarios[0].Repeats[0].Brokers[0]
	cores, busy := b.CPUCores, b.Kafka.HandlerBusy
	if cores == nil || busy == nil || len(cores.Values) != 3 || *cores.Values[0] != 1.5 || cores.Values[1] != nil || *busy.Values[2] != 75 || !cores.Start.Equal(rep.StartedAt) {
		t.Errorf("read back cores %+v, busy %+v; want 1.5, null, 0.25 cores and 75%% busy last", cores, busy)
	}
}
