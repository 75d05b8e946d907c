package study

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// TestSearchRate: with a cluster that keeps p99 under the limit up to
// 10,300 records/s, the search ends within 5% below it, in few probes.
func TestSearchRate(t *testing.T) {
	tests := []struct {
		name      string
		capacity  float64
		bound     bool // probes above capacity are generator-bound
		start     float64
		wantLimit string
	}{
		{"cluster", 10300, false, 1000, "cluster"},
		{"generator", 10300, true, 1000, "generator"},
		{"start above capacity", 10300, false, 50000, "cluster"},
		{"never broken", 1e12, false, 1000, "not reached"},
		// Regression: the first probe broke the SLO once (a cold cluster,
		// or one flushing a warm-up's writes); the search bisected below
		// it and answered 969 records/s.
		{"first probe missed once", 10300, false, 1000, "cluster"},
		// One miss near the capacity must not bound the answer either.
		{"a miss below the capacity", 10300, false, 1000, "cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probes := 0
			best, limit, _ := searchRate(tt.start, tt.start/10, 0, func(r float64) (result.Probe, bool) {
				probes++
				if tt.name == "first probe missed once" && probes == 1 ||
					tt.name == "a miss below the capacity" && r > 7000 && r < 10300 && probes < 8 {
					return result.Probe{Rate: r}, true // noise: missed, whatever the rate
				}
				ok := r <= tt.capacity
				return result.Probe{Rate: r, OK: ok, GeneratorBound: !ok && tt.bound}, true
			})
			if limit != tt.wantLimit {
				t.Errorf("limit %q, want %q", limit, tt.wantLimit)
			}
			if tt.capacity < 1e12 && (best > tt.capacity || best < 0.95*tt.capacity) {
				t.Errorf("found %.0f records/s, capacity %.0f: want within 5%% below", best, tt.capacity)
			}
			if probes > MaxProbes {
				t.Errorf("%d probes", probes)
			}
		})
	}
}

// TestConfirmRate: the answer is always a confirmed rate. A rate whose
// runs keep the SLO too rarely steps down until one keeps it in 4 of 5;
// a round stops as soon as it cannot succeed, and a round that succeeds
// runs all five. Regression: the search found 15,500 records/s, its one
// confirming run broke the SLO (p99 56.1 ms), and the user got no answer.
func TestConfirmRate(t *testing.T) {
	tests := []struct {
		name string
		// metAt says whether run k (from 0, counting every run) at rate r
		// keeps the SLO.
		metAt      func(r float64, k int) bool
		want       float64
		wantRounds []result.Confirmation
		wantRuns   int
	}{
		{"kept at once", func(float64, int) bool { return true }, 15500,
			[]result.Confirmation{{Rate: 15500, Runs: 5, Met: 5, Needed: 4, Confirmed: true}}, 5},
		{"one miss of five is enough", func(_ float64, k int) bool { return k != 2 }, 15500,
			[]result.Confirmation{{Rate: 15500, Runs: 5, Met: 4, Needed: 4, Confirmed: true}}, 5},
		{"step down once", func(r float64, _ int) bool { return r < 15000 }, 13950,
			[]result.Confirmation{{Rate: 15500, Runs: 2, Needed: 4}, {Rate: 13950, Runs: 5, Met: 5, Needed: 4, Confirmed: true}}, 7},
		{"never kept", func(float64, int) bool { return false }, 0, nil, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, announced := 0, 0
			got, rounds, reps := confirmRate(15500, 5, func(r float64, _ int) (result.Probe, result.Repeat, bool) {
				ok := tt.metAt(r, runs)
				runs++
				return result.Probe{Rate: r, OK: ok}, result.Repeat{Index: runs}, true
			}, func(result.Confirmation) { announced++ })
			if got != tt.want || runs != tt.wantRuns {
				t.Fatalf("confirmed %.0f records/s after %d runs, want %.0f after %d", got, runs, tt.want, tt.wantRuns)
			}
			if announced != len(rounds) {
				t.Errorf("%d rounds announced of %d", announced, len(rounds))
			}
			if tt.wantRounds != nil && !reflect.DeepEqual(rounds, tt.wantRounds) {
				t.Errorf("rounds %+v, want %+v", rounds, tt.wantRounds)
			}
			if tt.want == 0 && (len(rounds) != maxStepDowns+1 || reps != nil) {
				t.Errorf("%d rounds, runs %v: want %d rounds and no runs", len(rounds), reps, maxStepDowns+1)
			}
			if tt.want > 0 && len(reps) != 5 {
				t.Errorf("%d runs at the answer, want 5", len(reps))
			}
		})
	}
}

// TestBracket: where the SLO was last met and first missed, each rate
// judged by its last verdict (a confirmation overrides the search).
func TestBracket(t *testing.T) {
	met, missed := bracket(map[float64]bool{1000: true, 2000: true, 16000: false, 15500: false, 13950: true, 8000: true})
	if met != 13950 || missed != 15500 {
		t.Fatalf("last met %.0f, first missed %.0f; want 13950 and 15500", met, missed)
	}
	if met, missed := bracket(map[float64]bool{1000: true, 2000: true}); met != 2000 || missed != 0 {
		t.Fatalf("last met %.0f, first missed %.0f; want 2000 and none", met, missed)
	}
}

// TestProbeDuration: a p99 is judged on at least 2,000 steady records, a
// p99.9 on 20,000 (a tenth more asked, whole seconds); a low rate runs
// longer, within ten times the duration.
func TestProbeDuration(t *testing.T) {
	tests := []struct {
		rate, q float64
		want    time.Duration
	}{
		{1000, 0.99, 10 * time.Second},    // 8,000 steady records
		{100, 0.99, 24 * time.Second},     // 2 s warm + 1.1 × 2,000 / 100
		{1000, 0.999, 24 * time.Second},   // 2 s warm + 1.1 × 20,000 / 1,000
		{1, 0.99, 100 * time.Second},      // at most ten times
		{0, 0.99, 10 * time.Second},       // full speed
		{100000, 0.999, 10 * time.Second}, // plenty
		{250, 0.5, 10 * time.Second},      // a median needs 40
	}
	for _, tt := range tests {
		if got := probeDuration(10*time.Second, 2*time.Second, tt.rate, tt.q); got != tt.want {
			t.Errorf("%.0f records/s, q %v: %v, want %v", tt.rate, tt.q, got, tt.want)
		}
	}
}

// TestPreviewKeyAndHeaderTemplates: keys and headers render per record
// from templates, a string without its JSON quotes.
func TestPreviewKeyAndHeaderTemplates(t *testing.T) {
	p, err := plan.Parse("plan.yaml", []byte(`name: kt
workloads:
  - name: p
    type: produce
    topic: t
    records: 10
    message:
      size: 10
      key: {template: {_type: uuid}}
      headers: {source: kbench, seq: {_type: sequence, _start: 7}}
`), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	recs, order, err := Preview(p, &scs[0], "", 3, RunSeed(p))
	if err != nil || len(order) != 1 {
		t.Fatal(err)
	}
	for j, r := range recs["p"] {
		if len(r.Key) != 36 || len(r.Value) != 10 || len(r.Headers) != 2 ||
			string(r.Headers[0].Value) != "kbench" || string(r.Headers[1].Value) != strconv.Itoa(7+j) {
			t.Fatalf("record %d: key %q headers %v", j, r.Key, r.Headers)
		}
	}
}

// TestJudgeSearchRate: a search rate is judged by the confirmation's
// rule, each probe on its own: one stalled run of three misses a rate
// that needs 3 of 3, and a rate whose runs keep the latency but reach
// under 95% of it misses too (regression: median-of-three verdicts kept
// rates the confirmation then stepped down from). The judging stops as
// soon as the verdict is known.
func TestJudgeSearchRate(t *testing.T) {
	tests := []struct {
		name    string
		runs    []result.Probe
		n, need int
		want    bool
		ran     int
	}{
		{"all met", []result.Probe{{OK: true}, {OK: true}, {OK: true}}, 3, 3, true, 3},
		{"one stall of three", []result.Probe{{OK: true}, {OK: false, LatencyMs: 900}, {OK: true}}, 3, 3, false, 2},
		{"one miss of five is allowed", []result.Probe{{OK: true}, {}, {OK: true}, {OK: true}, {OK: true}}, 5, 4, true, 5},
		{"two misses of five stop it", []result.Probe{{}, {}, {OK: true}, {OK: true}, {OK: true}}, 5, 4, false, 2},
		{"a single probe", []result.Probe{{OK: true}}, 1, 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := 0
			v, runs, ok := judgeSearchRate(100, tt.n, tt.need, func(k int) (result.Probe, bool) {
				ran++
				return tt.runs[k], true
			})
			if !ok || v.OK != tt.want || ran != tt.ran || len(runs) != ran {
				t.Fatalf("verdict %v after %d runs (%d kept), want %v after %d", v.OK, ran, len(runs), tt.want, tt.ran)
			}
		})
	}
}

// TestCutOff: a run that failed only because records were still
// unacknowledged at its drain's end missed the SLO (the rate was too
// high); a run with any other error, or that acknowledged nothing, fails
// the search.
func TestCutOff(t *testing.T) {
	tests := []struct {
		name string
		pr   result.Producer
		want bool
	}{
		{"cancelled at the drain", result.Producer{Records: 900, Failed: 100, Unresolved: 100, Errors: map[string]int64{"CANCELLED": 100}}, true},
		// Regression: under -race the warm-up's client closed with
		// records queued (CLIENT_CLOSED), and the whole search failed.
		{"the client closed at the drain", result.Producer{Records: 900, Failed: 100, Unresolved: 100, Errors: map[string]int64{"CLIENT_CLOSED": 60, "CANCELLED": 40}}, true},
		{"refused records", result.Producer{Records: 900, Failed: 100, Unresolved: 40, Errors: map[string]int64{"CANCELLED": 40, "NOT_ENOUGH_REPLICAS": 60}}, false},
		{"nothing acknowledged", result.Producer{Failed: 100, Unresolved: 100, Errors: map[string]int64{"CANCELLED": 100}}, false},
		{"no failure", result.Producer{Records: 900}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := result.Repeat{Status: result.StatusFailed}
			if got := cutOff(rep, result.Workload{Producer: &tt.pr}); got != tt.want {
				t.Fatalf("cutOff = %v, want %v", got, tt.want)
			}
		})
	}
}
